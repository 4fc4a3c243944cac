import LoupeCodecs

extension ImageProcessors {
    /// Cuts out a rectangle (in pixels, origin top left). The part of the rectangle outside the
    /// image is dropped, like Pillow's `crop` without its padding; a rectangle that misses the
    /// image entirely is an error.
    public struct Crop: ImageProcessing {
        /// Left edge.
        public let x: Int
        /// Top edge.
        public let y: Int
        /// Width of the rectangle.
        public let width: Int
        /// Height of the rectangle.
        public let height: Int

        /// Creates a crop of `width`×`height` pixels at (`x`, `y`).
        public init(x: Int, y: Int, width: Int, height: Int) {
            self.x = x
            self.y = y
            self.width = width
            self.height = height
        }

        public var identifier: String { "loupe.crop(\(x),\(y),\(width),\(height))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            // Clamp in a way that cannot overflow for any Int input.
            let left = min(max(x, 0), bitmap.width), top = min(max(y, 0), bitmap.height)
            let right = width > 0 ? min(bitmap.width, x.addingReportingOverflow(width).overflow ? Int.max : x + width) : left
            let bottom = height > 0 ? min(bitmap.height, y.addingReportingOverflow(height).overflow ? Int.max : y + height) : top
            guard right > left, bottom > top else { throw .cropOutsideImage(x: x, y: y, width: width, height: height) }
            if left == 0, top == 0, right == bitmap.width, bottom == bitmap.height { return bitmap }
            let outWidth = right - left, outHeight = bottom - top
            if let deep = bitmap.deepSamples {
                return try DeepPixelSteps.crop(bitmap, samples: deep, left: left, top: top, width: outWidth, height: outHeight)
            }
            return try Bitmap.make(width: outWidth, height: outHeight) { out in
                bitmap.pixels.withUnsafeBufferPointer { source in
                    for row in 0..<outHeight {
                        let from = (top + row) * bitmap.bytesPerRow + left * 4
                        let to = row * outWidth * 4
                        for i in 0..<outWidth * 4 { out[to + i] = source[from + i] }
                    }
                }
            }
        }
    }
}

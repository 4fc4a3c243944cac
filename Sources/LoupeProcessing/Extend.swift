import LoupeCodecs

extension ImageProcessors {
    /// Places the image on a canvas of a given size at an offset, the rest filled with one colour
    /// (transparent by default): imgproxy's `extend`, `extend_aspect_ratio` and `padding`, which
    /// all embed the image in a larger frame.
    ///
    /// The part of the image outside the canvas is dropped, so a canvas smaller than the image
    /// (or an offset that pushes it out) cuts it rather than failing.
    public struct Extend: ImageProcessing {
        /// Canvas width in pixels.
        public let width: Int
        /// Canvas height in pixels.
        public let height: Int
        /// Where the image's left edge lands on the canvas (may be negative).
        public let x: Int
        /// Where the image's top edge lands on the canvas (may be negative).
        public let y: Int
        /// The canvas colour, straight RGBA.
        public let fill: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8)

        /// A `width`×`height` canvas with the image's top left at (`x`, `y`), filled with `fill`
        /// (transparent black unless given).
        public init(width: Int, height: Int, x: Int, y: Int, fill: (red: UInt8, green: UInt8, blue: UInt8, alpha: UInt8) = (0, 0, 0, 0)) {
            self.width = width
            self.height = height
            self.x = x
            self.y = y
            self.fill = fill
        }

        public var identifier: String {
            "loupe.extend(\(width)x\(height),\(x),\(y),\(fill.red).\(fill.green).\(fill.blue).\(fill.alpha))"
        }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            // Checked before anything is allocated: the canvas is the only allocation.
            try Resize.checkResultSize(width: width, height: height)
            if width == bitmap.width, height == bitmap.height, x == 0, y == 0 { return bitmap }
            // The overlap of the image and the canvas, in canvas coordinates; written so that no
            // offset, however large, overflows.
            let left = max(0, x), top = max(0, y)
            let right = min(width, x > width - bitmap.width ? width : x + bitmap.width)
            let bottom = min(height, y > height - bitmap.height ? height : y + bitmap.height)
            let fill = [self.fill.red, self.fill.green, self.fill.blue, self.fill.alpha]
            let canvasWidth = width
            if let deep = bitmap.deepSamples {
                return try DeepPixelSteps.extend(bitmap, samples: deep, width: width, height: height, x: x, y: y,
                                                 overlap: (left, top, right, bottom), fill: fill)
            }
            return try Bitmap.make(width: width, height: height) { out in
                for i in 0..<(canvasWidth * height) {
                    out[i * 4] = fill[0]
                    out[i * 4 + 1] = fill[1]
                    out[i * 4 + 2] = fill[2]
                    out[i * 4 + 3] = fill[3]
                }
                guard right > left, bottom > top else { return }
                // Here the image overlaps the canvas, so `left - x` and `top - y` are inside it.
                let sourceX = left - x, count = (right - left) * 4
                bitmap.pixels.withUnsafeBufferPointer { source in
                    for row in top..<bottom {
                        let from = (row - y) * bitmap.bytesPerRow + sourceX * 4
                        let to = (row * canvasWidth + left) * 4
                        for i in 0..<count { out[to + i] = source[from + i] }
                    }
                }
            }
        }
    }
}

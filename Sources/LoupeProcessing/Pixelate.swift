import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// Pixelation into square blocks of `size` pixels (imgproxy's `pixelate`): every block takes
    /// the average of its pixels.
    ///
    /// Blocks are aligned to the top-left corner, as imgproxy's (libvips) are: the image is padded
    /// on the right and bottom to whole blocks by mirroring it, so a block cut by an edge averages
    /// the pixels it has with their mirror images, then the padding is cut off again. A size larger
    /// than the image's longer side is that side (one block); a size of 0 or 1 changes nothing.
    /// Channels are averaged as they are stored (straight alpha), as imgproxy does when no blur or
    /// sharpen runs beside it.
    public struct Pixelate: ImageProcessing {
        /// The block side in pixels.
        public let size: Int

        /// Pixelation into blocks of `size` pixels (a negative size is refused when it runs).
        public init(size: Int) {
            self.size = size
        }

        public var identifier: String { "loupe.pixelate(\(size))" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            guard size >= 0 else { throw .invalidParameter("pixelate size \(size) is negative") }
            let width = bitmap.width, height = bitmap.height
            let block = min(size, max(width, height))
            guard block > 1 else { return bitmap }
            // Mirror padding as libvips' `VIPS_EXTEND_MIRROR`: the image, then its mirror image,
            // repeating; the block can be longer than the image along its shorter side. Each block
            // is summed over the distinct pixels it covers, each weighted by how often the padding
            // repeats it, so the work stays within a few passes over the image however large the
            // block (a 50,000-pixel block over a 50,000×1,000 image pads to 2.5 billion places).
            let columns = Self.spans(count: width, block: block)
            let rows = Self.spans(count: height, block: block)
            let area = block * block
            let stride = bitmap.bytesPerRow
            // Checked once per row of blocks.
            let cancellation = WorkCancellation.current
            return try Bitmap.make(width: width, height: height) { out throws(ProcessingError) in
                try bitmap.pixels.withUnsafeBufferPointer { source throws(ProcessingError) in
                    for (blockY, rowWeights) in rows.enumerated() {
                        try cancellation?.check(ProcessingError.cancelled)
                        for (blockX, columnWeights) in columns.enumerated() {
                            var sums = SIMD4<Int>.zero
                            for (y, rowCount) in rowWeights {
                                var rowSums = SIMD4<Int>.zero
                                for (x, columnCount) in columnWeights {
                                    let i = y * stride + x * 4
                                    rowSums &+= SIMD4(Int(source[i]), Int(source[i + 1]), Int(source[i + 2]), Int(source[i + 3])) &* columnCount
                                }
                                sums &+= rowSums &* rowCount
                            }
                            let average = (sums &+ area / 2) / area
                            let x0 = blockX * block, y0 = blockY * block
                            for y in y0..<min(y0 + block, height) {
                                for x in x0..<min(x0 + block, width) {
                                    let o = (y * width + x) * 4
                                    out[o] = UInt8(average[0])
                                    out[o + 1] = UInt8(average[1])
                                    out[o + 2] = UInt8(average[2])
                                    out[o + 3] = UInt8(average[3])
                                }
                            }
                        }
                    }
                }
            }
        }

        /// For each block along an axis of `count` pixels, the pixels it covers after mirror
        /// padding, with how many times each is covered.
        static func spans(count: Int, block: Int) -> [[(index: Int, times: Int)]] {
            func mirrored(_ index: Int) -> Int {
                let period = index % (2 * count)
                return period < count ? period : 2 * count - 1 - period
            }
            return stride(from: 0, to: count, by: block).map { start in
                var times: [Int: Int] = [:]
                for position in start..<start + block { times[mirrored(position), default: 0] += 1 }
                return times.sorted { $0.key < $1.key }.map { (index: $0.key, times: $0.value) }
            }
        }
    }
}

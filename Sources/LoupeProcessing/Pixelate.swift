import LoupeCodecs

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
        // repeating; the block can be wider than the image along its shorter side.
        func mirrored(_ index: Int, _ count: Int) -> Int {
            let period = index % (2 * count)
            return period < count ? period : 2 * count - 1 - period
        }
        let area = block * block
        let stride = bitmap.bytesPerRow
        return try Bitmap.make(width: width, height: height) { out in
            bitmap.pixels.withUnsafeBufferPointer { source in
                var blockY = 0
                while blockY < height {
                    var blockX = 0
                    while blockX < width {
                        var sums = SIMD4<Int>.zero
                        for y in blockY..<blockY + block {
                            let row = mirrored(y, height) * stride
                            for x in blockX..<blockX + block {
                                let i = row + mirrored(x, width) * 4
                                sums &+= SIMD4(Int(source[i]), Int(source[i + 1]), Int(source[i + 2]), Int(source[i + 3]))
                            }
                        }
                        let average = (sums &+ area / 2) / area
                        for y in blockY..<min(blockY + block, height) {
                            for x in blockX..<min(blockX + block, width) {
                                let o = (y * width + x) * 4
                                out[o] = UInt8(average[0])
                                out[o + 1] = UInt8(average[1])
                                out[o + 2] = UInt8(average[2])
                                out[o + 3] = UInt8(average[3])
                            }
                        }
                        blockX += block
                    }
                    blockY += block
                }
            }
        }
    }
}

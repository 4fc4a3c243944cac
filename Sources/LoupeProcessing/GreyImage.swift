import LoupeCaching
import LoupeCodecs

/// An 8-bit grey copy of a bitmap, at most ``shortSide`` pixels on its short side and
/// ``longSide`` on its long one: what detection runs on, so that its time is bounded by the
/// copy's size rather than the source's.
///
/// Grey is PIL's `L` (ITU-R 601 luma, rounded as PIL rounds it), which thumbor's detectors read,
/// alpha ignored as theirs ignore it. The copy averages each box of source pixels it covers (an
/// area filter: no aliasing for the cascade's features to trip on).
struct GreyImage: Sendable {
    let width: Int
    let height: Int
    /// Row after row, `width` bytes each.
    let pixels: [UInt8]
    /// The copy's size over the source's (1: not reduced).
    let scale: Double

    /// thumbor's detectors skip faces smaller than 1/15 of the image's short side (and than the
    /// cascade's 20-pixel window): on a copy 300 pixels short that bound is the window itself, so
    /// reducing a larger image to it loses no face thumbor's parameters would find.
    static let shortSide = 300
    /// The long side's bound, for panoramas, where the short side's would leave a long strip.
    static let longSide = 1200

    /// The scale a `width`×`height` source is reduced by.
    static func scale(width: Int, height: Int) -> Double {
        let short = Double(max(1, min(width, height))), long = Double(max(1, max(width, height)))
        return min(1, Double(shortSide) / short, Double(longSide) / long)
    }

    /// The copy's size for a `width`×`height` source.
    static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let scale = scale(width: width, height: height)
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// The grey copy of `bitmap`; throws `cancelled` when its work is, between bands of rows.
    init(_ bitmap: Bitmap) throws(ProcessingError) {
        let size = Self.size(width: bitmap.width, height: bitmap.height)
        width = size.width
        height = size.height
        scale = Double(size.width) / Double(max(1, bitmap.width))
        let sourceWidth = bitmap.width, sourceHeight = bitmap.height, stride = bitmap.bytesPerRow
        // Each source column's copy column, once.
        let columns = (0..<sourceWidth).map { min(size.width - 1, $0 * size.width / sourceWidth) }
        var sums = [Int](repeating: 0, count: size.width)
        var counts = [Int](repeating: 0, count: size.width)
        var grey = [UInt8](repeating: 0, count: size.width * size.height)
        let cancellation = WorkCancellation.current
        try bitmap.pixels.withUnsafeBufferPointer { (source: UnsafeBufferPointer<UInt8>) throws(ProcessingError) in
            var y = 0
            for row in 0..<size.height {
                try cancellation?.check(ProcessingError.cancelled)
                // The source rows this copy row covers: [row·H/h, (row+1)·H/h), at least one.
                let end = min(sourceHeight, max(y + 1, (row + 1) * sourceHeight / size.height))
                for index in 0..<size.width {
                    sums[index] = 0
                    counts[index] = 0
                }
                while y < end {
                    let offset = y * stride
                    for x in 0..<sourceWidth {
                        let i = offset + x * 4
                        // PIL's L: (r·19595 + g·38470 + b·7471 + 2¹⁵) >> 16.
                        let luma = (Int(source[i]) * 19595 + Int(source[i + 1]) * 38470 + Int(source[i + 2]) * 7471 + 0x8000) >> 16
                        sums[columns[x]] += luma
                        counts[columns[x]] += 1
                    }
                    y += 1
                }
                for index in 0..<size.width where counts[index] > 0 {
                    grey[row * size.width + index] = UInt8((sums[index] + counts[index] / 2) / counts[index])
                }
            }
        }
        pixels = grey
    }

    /// Pixel operations and bytes to make the copy of a `width`×`height` source: each source
    /// pixel read and weighed once, the copy's bytes.
    static func estimatedCost(width: Int, height: Int) -> ProcessingCost {
        let size = size(width: width, height: height)
        return ProcessingCost(operations: Double(max(0, width)) * Double(max(0, height)), bytes: Double(size.width * size.height))
    }
}

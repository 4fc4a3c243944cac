import LoupeCaching
import LoupeCodecs

extension ImageProcessors {
    /// thumbor's `equalize()`: each of red, green and blue through its histogram's cumulative
    /// distribution, `(cdf(v) − min) / (pixels − min) · 255` truncated; alpha kept. As thumbor's,
    /// the minimum is taken at the first value where any channel has pixels, so a channel whose
    /// darkest value is lighter than another's keeps a minimum of 0. A channel of one value (no
    /// spread to stretch) is left as it is, where thumbor divides by zero.
    public struct Equalize: ImageProcessing {
        /// The equalised image.
        public init() {}

        public var identifier: String { "loupe.equalize" }

        public func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            var histograms = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
            let cancellation = WorkCancellation.current
            for y in 0..<bitmap.height {
                if y % PixelBands.rows == 0 { try cancellation?.check(ProcessingError.cancelled) }
                for x in 0..<bitmap.width {
                    let o = y * bitmap.bytesPerRow + x * 4
                    for channel in 0..<3 { histograms[channel][Int(bitmap.pixels[o + channel])] += 1 }
                }
            }
            let cumulative = histograms.map { histogram in
                var total = 0
                return histogram.map { count in
                    total += count
                    return count > 0 ? total : 0
                }
            }
            var minimum = [0, 0, 0]
            for value in 0..<256 where minimum == [0, 0, 0] {
                for channel in 0..<3 where minimum[channel] == 0 { minimum[channel] = cumulative[channel][value] }
            }
            let area = bitmap.width * bitmap.height
            let tables: [[Int]] = (0..<3).map { channel in
                (0..<256).map { value in
                    let spread = Float(area - minimum[channel])
                    guard spread != 0 else { return value }
                    return Int((Float(cumulative[channel][value]) - Float(minimum[channel])) / spread * 255)
                }
            }
            return try PixelBands.mapColors(bitmap) { red, green, blue in
                red = tables[0][red]
                green = tables[1][green]
                blue = tables[2][blue]
            }
        }
    }
}

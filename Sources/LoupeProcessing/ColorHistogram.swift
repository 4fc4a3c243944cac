import LoupeCodecs

/// The colour histogram ColorThief 0.2.1 quantizes: 5 significant bits per channel (32 bins
/// each, bin index `r << 10 | g << 5 | b`), filled from every `quality`-th pixel in row-major
/// order over the whole image, skipping pixels with alpha < 125 and those with r, g and b all
/// above 250.
///
/// It also keeps a summed-area table so the population of any box of bins costs eight
/// lookups; ColorThief sums the box bin by bin, which gives the same integers.
struct ColorHistogram: Sendable {
    /// Bins per channel.
    static let side = 32
    /// Summed-area table side (one zero row/column/plane in front).
    private static let tableSide = side + 1

    /// Pixel counts per bin.
    private(set) var counts: [Int]
    /// `table[(r * 33 + g) * 33 + b]` = pixels in bins [0, r) × [0, g) × [0, b).
    private var table: [Int]
    /// How many sampled pixels were used.
    let population: Int
    /// The smallest box holding every used pixel (ColorThief's `vbox_from_pixels`).
    let bounds: ColorBox.Bounds

    /// Samples `bitmap` as ColorThief does; nil when no sampled pixel is usable.
    init?(bitmap: Bitmap, quality: Int) {
        precondition(quality >= 1, "callers validate quality")
        var counts = [Int](repeating: 0, count: Self.side * Self.side * Self.side)
        var used = 0
        let width = bitmap.width, height = bitmap.height, rowBytes = bitmap.bytesPerRow
        bitmap.pixels.withUnsafeBufferPointer { pixels in
            counts.withUnsafeMutableBufferPointer { bins in
                // Walk the flat pixel index i = y * width + x in steps of `quality`, carrying x
                // and y along instead of dividing for every sample.
                var x = 0, y = 0
                while y < height {
                    let at = y * rowBytes + x * 4
                    let r = pixels[at], g = pixels[at + 1], b = pixels[at + 2], a = pixels[at + 3]
                    if a >= 125, !(r > 250 && g > 250 && b > 250) {
                        bins[Int(r >> 3) << 10 | Int(g >> 3) << 5 | Int(b >> 3)] += 1
                        used += 1
                    }
                    x += quality
                    if x >= width {
                        y += x / width
                        x %= width
                    }
                }
            }
        }
        guard used > 0 else { return nil }
        self.counts = counts
        self.population = used
        self.table = Self.summedAreaTable(counts)

        var bounds = ColorBox.Bounds(r1: Self.side, r2: 0, g1: Self.side, g2: 0, b1: Self.side, b2: 0)
        for index in counts.indices where counts[index] != 0 {
            let r = index >> 10, g = index >> 5 & 31, b = index & 31
            bounds.r1 = min(bounds.r1, r); bounds.r2 = max(bounds.r2, r)
            bounds.g1 = min(bounds.g1, g); bounds.g2 = max(bounds.g2, g)
            bounds.b1 = min(bounds.b1, b); bounds.b2 = max(bounds.b2, b)
        }
        self.bounds = bounds
    }

    private static func summedAreaTable(_ counts: [Int]) -> [Int] {
        let n = tableSide
        var table = [Int](repeating: 0, count: n * n * n)
        for r in 1..<n {
            for g in 1..<n {
                var rowSum = 0
                for b in 1..<n {
                    rowSum += counts[(r - 1) << 10 | (g - 1) << 5 | (b - 1)]
                    let here = (r * n + g) * n + b
                    table[here] = rowSum + table[here - n] + table[here - n * n] - table[here - n - n * n]
                }
            }
        }
        return table
    }

    /// Pixels in the bins of `bounds` (inclusive ranges); 0 for an empty (inverted) box, which
    /// ColorThief's cuts can produce.
    func population(in bounds: ColorBox.Bounds) -> Int {
        guard bounds.r1 <= bounds.r2, bounds.g1 <= bounds.g2, bounds.b1 <= bounds.b2 else { return 0 }
        let n = Self.tableSide
        func s(_ r: Int, _ g: Int, _ b: Int) -> Int { table[(r * n + g) * n + b] }
        let r0 = bounds.r1, r1 = bounds.r2 + 1, g0 = bounds.g1, g1 = bounds.g2 + 1, b0 = bounds.b1, b1 = bounds.b2 + 1
        return s(r1, g1, b1) - s(r0, g1, b1) - s(r1, g0, b1) - s(r1, g1, b0)
            + s(r0, g0, b1) + s(r0, g1, b0) + s(r1, g0, b0) - s(r0, g0, b0)
    }
}

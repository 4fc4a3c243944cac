/// A box of histogram bins (ColorThief's `VBox`): inclusive bin ranges per channel with its
/// population and volume fixed at creation, as ColorThief's cached properties are.
struct ColorBox: Sendable {
    /// Inclusive bin ranges; a cut may leave `r1 > r2` (an empty box), exactly as ColorThief.
    struct Bounds: Sendable, Equatable {
        var r1: Int, r2: Int, g1: Int, g2: Int, b1: Int, b2: Int
    }

    let bounds: Bounds
    /// Sampled pixels inside the box.
    let count: Int
    /// Number of bins, 0 for an inverted box (ColorThief's formula gives that too).
    let volume: Int

    init(_ bounds: Bounds, in histogram: ColorHistogram) {
        self.bounds = bounds
        self.count = histogram.population(in: bounds)
        self.volume = (bounds.r2 - bounds.r1 + 1) * (bounds.g2 - bounds.g1 + 1) * (bounds.b2 - bounds.b1 + 1)
    }

    /// The box's colour: the population-weighted mean of its bin centres, `(i + 0.5) * 8`,
    /// truncated; an empty box gives its geometric centre. Matches ColorThief's `VBox.avg`
    /// bit for bit: its float sums are exact integers, so summing integers and dividing once
    /// in `Double` rounds identically.
    func average(in histogram: ColorHistogram) -> RGBColor {
        var total = 0, red = 0, green = 0, blue = 0
        if count > 0 {
            histogram.counts.withUnsafeBufferPointer { counts in
                for r in bounds.r1...bounds.r2 {
                    for g in bounds.g1...bounds.g2 {
                        for b in bounds.b1...bounds.b2 {
                            let n = counts[r << 10 | g << 5 | b]
                            total += n
                            red += n * (8 * r + 4)
                            green += n * (8 * g + 4)
                            blue += n * (8 * b + 4)
                        }
                    }
                }
            }
        }
        guard total > 0 else {
            // int(8 * (lo + hi + 1) / 2), a whole number. An empty box above the top bin
            // (lo 32, hi 31) gives 256 in ColorThief; a byte saturates at 255.
            func centre(_ lo: Int, _ hi: Int) -> UInt8 { UInt8(clamping: 4 * (lo + hi + 1)) }
            return RGBColor(red: centre(bounds.r1, bounds.r2), green: centre(bounds.g1, bounds.g2),
                            blue: centre(bounds.b1, bounds.b2))
        }
        func mean(_ sum: Int) -> UInt8 { UInt8(clamping: Int((Double(sum) / Double(total)).rounded(.towardZero))) }
        return RGBColor(red: mean(red), green: mean(green), blue: mean(blue))
    }
}

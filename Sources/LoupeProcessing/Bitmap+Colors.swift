import LoupeCodecs

/// Dominant colour and palette, the one place the colour algorithm lives (the poster feed asks for
/// exactly that, so it can be swapped without touching callers). Both give the colours the
/// Python package `colorthief` 0.2.1 gives for the same pixels: same sampling, same
/// histogram, same median cut, same integer colours.
extension Bitmap {
    /// ColorThief's `get_color(quality)`: the first colour of its 5-colour palette, i.e. the
    /// box with the largest population × volume.
    ///
    /// - Parameter quality: sample every `quality`-th pixel in row-major order (1 = all).
    /// - Throws: `ColorExtractionError.noUsablePixels` when every sampled pixel is transparent
    ///   or near-white; `.invalidQuality` for `quality < 1`.
    public func dominantColor(quality: Int = 10) throws(ColorExtractionError) -> RGBColor {
        let colors = try MedianCutQuantizer(histogram: colorHistogram(quality: quality)).palette(maxColors: 5)
        // The quantizer always returns at least the starting box.
        guard let first = colors.first else { throw .noUsablePixels }
        return first
    }

    /// A palette of `count` colours, ordered as ColorThief orders them (largest
    /// population × volume first).
    ///
    /// ColorThief's `get_palette(n)` does not return `n` colours: its second phase counts
    /// from one, so 10 gives 9 colours, 8 gives 7, while 2 gives 3. This returns exactly
    /// `count` colours: the first `count` of ColorThief's palette for `count` colours, or,
    /// when that comes back short, of its palette for `count + 1`. The result is therefore
    /// always a prefix of a ColorThief palette for the same pixels. Only an image with too few
    /// distinct pixels to cut (a one-pixel sample, say) gives fewer colours than asked.
    ///
    /// Like ColorThief, a cut can leave an empty box, which still yields a colour (its
    /// geometric centre). For an empty box above the top bin ColorThief reports a channel of
    /// 256; ours is a byte, so that channel is 255 here.
    ///
    /// - Parameters:
    ///   - count: 1...255 colours.
    ///   - quality: sample every `quality`-th pixel in row-major order (1 = all).
    public func palette(count: Int = 10, quality: Int = 10) throws(ColorExtractionError) -> [RGBColor] {
        guard (1...255).contains(count) else { throw .invalidColorCount(count) }
        let quantizer = try MedianCutQuantizer(histogram: colorHistogram(quality: quality))
        var colors = quantizer.palette(maxColors: max(2, count))
        if colors.count < count { colors = quantizer.palette(maxColors: count + 1) }
        return Array(colors.prefix(count))
    }

    private func colorHistogram(quality: Int) throws(ColorExtractionError) -> ColorHistogram {
        guard quality >= 1 else { throw .invalidQuality(quality) }
        guard let histogram = ColorHistogram(bitmap: self, quality: quality) else { throw .noUsablePixels }
        return histogram
    }
}

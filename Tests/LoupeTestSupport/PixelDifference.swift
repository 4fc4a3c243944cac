import LoupeCodecs

/// Per-channel differences between two bitmaps over the area they share: how far a decode or a
/// resize is from a reference (Pillow, lcms2, another order of the same steps).
package struct PixelDifference {
    /// The largest difference of one channel of one pixel.
    package private(set) var maximum = 0
    /// The mean difference per channel.
    package private(set) var mean = 0.0

    /// Compares `a` and `b`, colour channels only when `ignoringAlpha`.
    package init(_ a: Bitmap, _ b: Bitmap, ignoringAlpha: Bool = false) {
        var total = 0, count = 0
        for y in 0..<min(a.height, b.height) {
            for x in 0..<min(a.width, b.width) {
                for c in 0..<(ignoringAlpha ? 3 : 4) {
                    let d = abs(Int(a.pixels[y * a.bytesPerRow + x * 4 + c]) - Int(b.pixels[y * b.bytesPerRow + x * 4 + c]))
                    maximum = max(maximum, d)
                    total += d
                    count += 1
                }
            }
        }
        mean = count > 0 ? Double(total) / Double(count) : 0
    }
}

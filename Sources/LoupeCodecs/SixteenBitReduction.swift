/// How a decoder brings 16-bit samples (PNG) down to the 8 bits of a `Bitmap`.
public enum SixteenBitReduction: Sendable, Equatable {
    /// The nearest 8-bit value (`v * 255 / 65535`, rounded): the most faithful, and libpng's
    /// and libvips's choice.
    case rounded
    /// Each sample's high byte (`v >> 8`), as Pillow converts 16-bit RGB and RGBA PNGs: what
    /// Python `colorthief` reads, so colours computed to match it exactly need it. Differs
    /// from `.rounded` by at most one unit.
    case highByte
}

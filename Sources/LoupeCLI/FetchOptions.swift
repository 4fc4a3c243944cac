import Foundation
import LoupeCodecs

/// What `loupe fetch` makes of each image, decided once from its arguments.
struct FetchOptions: Sendable {
    /// Longest side of the output, decoded downscaled; `nil` for full size.
    var thumbnail: Int?
    /// Where results are written; `nil` writes nothing.
    var outputDirectory: URL?
    /// The output format; `nil` keeps the source's (HEIF and JPEG XL become WebP).
    var format: OutputFormat?
    /// JPEG and WebP quality.
    var quality: Int
    /// Colours, and from which pixels.
    var colors: ColorMode?
    /// Colours in the palette.
    var paletteSize: Int
    var placeholder: PlaceholderKind?
    /// Checked before any image is decoded.
    var decodingLimits: DecodingLimits
}

/// How colours are computed.
enum ColorMode: Sendable {
    /// From the full-size pixels as stored (not rotated): exactly what `colorthief` returns.
    case exact
    /// From the downscaled decode, every pixel sampled: a few units off at most, typically.
    case fast
}

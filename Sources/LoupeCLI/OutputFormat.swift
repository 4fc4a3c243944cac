import ArgumentParser
import LoupeCodecs

/// `--format`: what results are written as (the formats Loupe writes). Which format a result
/// gets without it, and how each is encoded, is the codecs' policy (`ImageFormat+Output`).
enum OutputFormat: String, Sendable, CaseIterable, ExpressibleByArgument {
    case jpeg, png, webp, avif, gif, jxl, heic, tiff, bmp, ico

    /// The codecs' format this names.
    var imageFormat: ImageFormat {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .webp: .webp
        case .avif: .avif
        case .gif: .gif
        case .jxl: .jxl
        case .heic: .heif
        case .tiff: .tiff
        case .bmp: .bmp
        case .ico: .ico
        }
    }
}

/// `--placeholder`: which compact placeholder string to compute.
enum PlaceholderKind: String, Sendable, CaseIterable, ExpressibleByArgument {
    case blurhash, thumbhash
}

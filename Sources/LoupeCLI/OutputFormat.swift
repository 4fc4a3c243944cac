import ArgumentParser
import LoupeCodecs

/// `--format`: what results are written as.
enum OutputFormat: String, Sendable, CaseIterable, ExpressibleByArgument {
    case jpeg, png, webp, avif, gif

    /// The format a result is written in: the one asked for, else the source's own (HEIF and
    /// JPEG XL, which Loupe does not write, become WebP, which keeps their transparency at a
    /// photo's size).
    static func resolved(_ asked: OutputFormat?, source: ImageFormat) -> OutputFormat {
        if let asked { return asked }
        switch source {
        case .jpeg: return .jpeg
        case .gif: return .gif
        case .png: return .png
        case .webp, .heif, .jxl: return .webp
        case .avif: return .avif
        }
    }

    func encoderFormat(quality: Int) -> ImageEncoder.Format {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .avif: .avif(quality: quality)
        case .gif: .gif
        }
    }

    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        case .gif: "gif"
        }
    }

    /// Whether results in this format keep an animation's frames (GIF and WebP do).
    var animates: Bool { self == .gif || self == .webp }
}

/// `--placeholder`: which compact placeholder string to compute.
enum PlaceholderKind: String, Sendable, CaseIterable, ExpressibleByArgument {
    case blurhash, thumbhash
}

import ArgumentParser
import LoupeCodecs

/// `--format`: what results are written as.
enum OutputFormat: String, Sendable, CaseIterable, ExpressibleByArgument {
    case jpeg, png, webp, avif

    /// The format a result is written in: the one asked for, else the source's own (GIF, which
    /// Loupe does not write, becomes PNG, which keeps its transparency; HEIF and JPEG XL, which
    /// it does not write either, become WebP, which keeps theirs at a photo's size).
    static func resolved(_ asked: OutputFormat?, source: ImageFormat) -> OutputFormat {
        if let asked { return asked }
        switch source {
        case .jpeg: return .jpeg
        case .png, .gif: return .png
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
        }
    }

    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        case .avif: "avif"
        }
    }
}

/// `--placeholder`: which compact placeholder string to compute.
enum PlaceholderKind: String, Sendable, CaseIterable, ExpressibleByArgument {
    case blurhash, thumbhash
}

import ArgumentParser
import LoupeCodecs

/// `--format`: what results are written as.
enum OutputFormat: String, Sendable, CaseIterable, ExpressibleByArgument {
    case jpeg, png, webp

    /// The format a result is written in: the one asked for, else the source's own (GIF, which
    /// Loupe does not write, becomes PNG, which keeps its transparency).
    static func resolved(_ asked: OutputFormat?, source: ImageFormat) -> OutputFormat {
        if let asked { return asked }
        switch source {
        case .jpeg: return .jpeg
        case .png, .gif: return .png
        case .webp: return .webp
        }
    }

    func encoderFormat(quality: Int) -> ImageEncoder.Format {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        }
    }

    var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp: "webp"
        }
    }
}

/// `--placeholder`: which compact placeholder string to compute.
enum PlaceholderKind: String, Sendable, CaseIterable, ExpressibleByArgument {
    case blurhash, thumbhash
}

/// Why a dominant colour or palette could not be computed.
public enum ColorExtractionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Every sampled pixel was transparent (alpha < 125) or near-white (r, g and b all > 250),
    /// so there is nothing to quantize. ColorThief raises a bare `Exception` here.
    case noUsablePixels
    /// `quality` must be at least 1 (1 samples every pixel).
    case invalidQuality(Int)
    /// A palette holds 1...255 colours.
    case invalidColorCount(Int)

    public var description: String {
        switch self {
        case .noUsablePixels: "the image has no opaque, non-white pixels to take colours from"
        case let .invalidQuality(quality): "quality must be at least 1, got \(quality)"
        case let .invalidColorCount(count): "a palette holds 1...255 colours, asked for \(count)"
        }
    }
}

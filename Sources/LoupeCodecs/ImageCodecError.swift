/// Every failure of LoupeCodecs: bad input, refused input, or a C library's own error message.
public enum ImageCodecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The bytes start with no signature of a supported format (JPEG, PNG, WebP, GIF, HEIF, AVIF, JPEG XL, TIFF, BMP, ICO,
    /// SVG).
    case unrecognizedFormat
    /// The image declares a zero (or otherwise unusable) size.
    case invalidDimensions(width: Int, height: Int)
    /// The declared size exceeds `DecodingLimits.maxPixelCount`; nothing was allocated.
    case pixelLimitExceeded(width: Int, height: Int, limit: Int)
    /// The file holds more frames than `DecodingLimits.maxFrameCount`; nothing was allocated.
    case frameLimitExceeded(frames: Int, limit: Int)
    /// All frames together exceed `DecodingLimits.maxTotalPixelCount`; nothing was allocated.
    case totalPixelLimitExceeded(frames: Int, pixelsPerFrame: Int, limit: Int)
    /// The C library rejected the data; `message` is the library's own text.
    case corrupt(ImageFormat, message: String)
    /// A bitmap or option handed to an encoder or initializer is not usable.
    case invalidBitmap(String)
    /// The C library failed to encode; `message` is the library's own text.
    case encodingFailed(ImageFormat, message: String)
    /// The format's C library (libheif, libavif, libjxl, libtiff or librsvg: loaded on first use, not linked)
    /// cannot be loaded: not installed, or older than Loupe was built for. `library` is the file
    /// name looked for (e.g. "libheif.so.1"); `reason` is the loader's own text. The format is
    /// unsupported in this process; every other format still works.
    case libraryUnavailable(ImageFormat, library: String, reason: String)
    /// The encode was cancelled (its ``LoupeCaching/WorkCancellation``) before it finished; no
    /// partial output is returned.
    case cancelled

    public var description: String {
        switch self {
        case .unrecognizedFormat: "unrecognized image format"
        case let .invalidDimensions(width, height): "invalid image size \(width)x\(height)"
        case let .pixelLimitExceeded(width, height, limit):
            "image of \(width)x\(height) pixels exceeds the limit of \(limit) pixels"
        case let .frameLimitExceeded(frames, limit): "image has more than \(limit) frames (found \(frames))"
        case let .totalPixelLimitExceeded(frames, pixelsPerFrame, limit):
            "\(frames) frames of \(pixelsPerFrame) pixels exceed the limit of \(limit) pixels in all"
        case let .corrupt(format, message): "corrupt \(format) data: \(message)"
        case let .invalidBitmap(message): "invalid bitmap: \(message)"
        case let .encodingFailed(format, message): "\(format) encoding failed: \(message)"
        case let .libraryUnavailable(format, _, reason): "\(format) is unavailable: \(reason)"
        case .cancelled: "cancelled"
        }
    }
}

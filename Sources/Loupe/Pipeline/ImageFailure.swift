import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// Why loading, decoding, processing or encoding an image failed, classified once for every
/// front end: `loupe fetch` maps each ``Reason`` to its JSON kinds and exit status, the service
/// to HTTP statuses, each in one place, so the same failure never means two things.
public struct ImageFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// The classes of failure a caller acts on differently.
    public enum Reason: String, Sendable, CaseIterable {
        /// The source is not a URL Loupe loads (malformed, or a scheme it does not speak).
        case invalidSource
        /// The source's address is refused by the address policy (a private network, say).
        case forbiddenSource
        /// The connection failed or broke, redirects looped, or the answer broke HTTP.
        case network
        /// Connecting or the whole load took too long.
        case timeout
        /// The server answered with a status outside 2xx (``ImageFailure/httpStatus`` says which).
        case httpStatus
        /// The source server refused the loader's credentials or configuration (S3's
        /// `SignatureDoesNotMatch`, say): the operator's to fix (``ImageFailure/httpStatus`` says
        /// what the server answered).
        case accessDenied
        /// The body is larger than the size limit.
        case tooLarge
        /// A local file could not be read.
        case unreadableFile
        /// The request allowed only cached data, and none was cached.
        case notCached
        /// The data is not an image in a format Loupe reads.
        case unsupportedFormat
        /// The format is known but its codec library is not installed.
        case codecUnavailable
        /// The image is past the pixel, frame or size limits (from its header, before decoding).
        case limitExceeded
        /// The work the request asks of the image is over a cost limit (estimated from its
        /// header and the processors, before decoding).
        case tooExpensive
        /// The data claims a supported format but cannot be decoded.
        case corrupt
        /// A processor refused the image (a crop outside it, a bad parameter).
        case processingFailed
        /// The result could not be encoded.
        case encodingFailed
        /// The work was cancelled.
        case cancelled
        /// Anything else (an I/O error of the caller's own, say).
        case other
    }

    /// The class of failure.
    public var reason: Reason
    /// The underlying error's own description.
    public var message: String
    /// The source server's status, for ``Reason/httpStatus``.
    public var httpStatus: Int?
    /// The format concerned, for ``Reason/codecUnavailable``.
    public var format: ImageFormat?

    public var description: String { message }

    /// The failure `error` stands for: a pipeline error is classified by what it wraps.
    public init(_ error: any Error) {
        switch error {
        case let failure as ImageFailure: self = failure
        case let error as ImagePipelineError:
            switch error {
            case .dataLoadingFailed(let underlying), .decodingFailed(let underlying), .processingFailed(_, let underlying),
                 .requestModifierFailed(let underlying):
                self.init(underlying)
            case .notCached: self.init(.notCached, error.description)
            }
        case let error as DataLoadingError: self.init(loading: error)
        case let error as ImageCodecError: self.init(codec: error)
        case let error as ProcessingError:
            switch error {
            case .invalidSize: self.init(.limitExceeded, error.description)
            case .cancelled: self.init(.cancelled, "cancelled")
            case .cropOutsideImage, .invalidParameter: self.init(.processingFailed, error.description)
            }
        case let error as CostLimitExceeded: self.init(.tooExpensive, error.description)
        case is CancellationError: self.init(.cancelled, "cancelled")
        default: self.init(.other, "\(error)")
        }
    }

    init(_ reason: Reason, _ message: String, httpStatus: Int? = nil, format: ImageFormat? = nil) {
        self.reason = reason
        self.message = message
        self.httpStatus = httpStatus
        self.format = format
    }

    private init(loading error: DataLoadingError) {
        let message = error.description
        switch error {
        case .invalidURL, .unsupportedScheme: self.init(.invalidSource, message)
        case .forbiddenAddress: self.init(.forbiddenSource, message)
        case .httpStatus(let status, _, _): self.init(.httpStatus, message, httpStatus: status)
        case .tooLarge: self.init(.tooLarge, message)
        case .timedOut: self.init(.timeout, message)
        case .tooManyRedirects, .network, .invalidResponse: self.init(.network, message)
        case .file: self.init(.unreadableFile, message)
        case .invalidRequest: self.init(.invalidSource, message)
        case .accessDenied(let status, _, _): self.init(.accessDenied, message, httpStatus: status)
        }
    }

    private init(codec error: ImageCodecError) {
        let message = error.description
        switch error {
        case .unrecognizedFormat: self.init(.unsupportedFormat, "not a JPEG, PNG, WebP, GIF, HEIF, AVIF, JPEG XL, TIFF, BMP or ICO image")
        case .libraryUnavailable(let format, _, _): self.init(.codecUnavailable, message, format: format)
        case .pixelLimitExceeded, .frameLimitExceeded, .totalPixelLimitExceeded: self.init(.limitExceeded, message)
        case .encodingFailed: self.init(.encodingFailed, message)
        case .invalidDimensions, .corrupt, .invalidBitmap: self.init(.corrupt, message)
        case .cancelled: self.init(.cancelled, "cancelled")
        }
    }
}

import Foundation
import Loupe
import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// Why one source of `loupe fetch` failed, in the kinds its JSON promises, so a script can act
/// on `error.kind` (retry a `timeout`, skip an `unsupportedFormat`) without parsing messages.
struct FetchFailure: Error, Sendable, Equatable {
    /// The JSON `error.kind`.
    enum Kind: String, Sendable, CaseIterable {
        /// The source is neither a URL Loupe loads nor a path.
        case invalidSource
        /// The connection failed, broke, or the server's answer broke HTTP.
        case network
        /// Connecting or the whole load took longer than `--timeout`.
        case timeout
        /// The server answered with a status outside 2xx (`status` says which).
        case http
        /// The body is larger than `--max-size`.
        case tooLarge
        /// The data is not an image format Loupe reads (an HTML error page, say).
        case unsupportedFormat
        /// The data claims a supported format but cannot be decoded.
        case corrupt
        /// The image is larger than the decoding limits (a decompression bomb, for one).
        case limitExceeded
        /// A local file could not be read, or the result could not be written.
        case io
    }

    var kind: Kind
    var message: String
    /// The HTTP status, for ``Kind/http``.
    var status: Int?

    static func invalidSource(_ message: String) -> FetchFailure { FetchFailure(kind: .invalidSource, message: message) }
    static func io(_ message: String) -> FetchFailure { FetchFailure(kind: .io, message: message) }

    /// The failure a pipeline (or codec, or processing) error stands for.
    init(_ error: any Error) {
        switch error {
        case let failure as FetchFailure:
            self = failure
        case let error as ImagePipelineError:
            switch error {
            case .dataLoadingFailed(let underlying): self.init(loading: underlying)
            case .decodingFailed(let underlying): self.init(decoding: underlying)
            case .processingFailed(_, let underlying): self.init(decoding: underlying)
            case .notCached: self.init(kind: .network, message: error.description)
            }
        case let error as ImageCodecError:
            self.init(decoding: error)
        case let error as DataLoadingError:
            self.init(loading: error)
        default:
            self.init(kind: .io, message: "\(error)")
        }
    }

    init(kind: Kind, message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }

    private init(loading error: any Error) {
        guard let error = error as? DataLoadingError else {
            self.init(kind: .network, message: "\(error)")
            return
        }
        let message = error.description
        switch error {
        case .invalidURL, .unsupportedScheme: self.init(kind: .invalidSource, message: message)
        case .httpStatus(let status, _, _): self.init(kind: .http, message: message, status: status)
        case .tooLarge: self.init(kind: .tooLarge, message: message)
        case .timedOut: self.init(kind: .timeout, message: message)
        // A redirect loop or a broken answer: the exchange failed, there is no status to report.
        case .tooManyRedirects, .network, .invalidResponse: self.init(kind: .network, message: message)
        case .file: self.init(kind: .io, message: message)
        case .forbiddenAddress: self.init(kind: .invalidSource, message: message)
        }
    }

    private init(decoding error: any Error) {
        let message = "\(error)"
        switch error {
        case ImageCodecError.unrecognizedFormat:
            self.init(kind: .unsupportedFormat, message: "not a JPEG, PNG, WebP, GIF, HEIF, AVIF or JPEG XL image")
        case ImageCodecError.libraryUnavailable:
            self.init(kind: .unsupportedFormat, message: message)
        case ImageCodecError.pixelLimitExceeded, ImageCodecError.frameLimitExceeded, ImageCodecError.totalPixelLimitExceeded:
            self.init(kind: .limitExceeded, message: message)
        case ProcessingError.invalidSize:
            self.init(kind: .limitExceeded, message: message)
        default:
            self.init(kind: .corrupt, message: message)
        }
    }
}

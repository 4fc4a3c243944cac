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

    /// The failure a pipeline (or codec, or processing) error stands for: the one place an
    /// ``ImageFailure`` becomes a `loupe fetch` kind.
    init(_ error: any Error) {
        if let failure = error as? FetchFailure {
            self = failure
            return
        }
        let failure = ImageFailure(error)
        let kind: Kind = switch failure.reason {
        case .invalidSource, .forbiddenSource: .invalidSource
        case .network, .notCached: .network
        case .timeout: .timeout
        case .httpStatus, .accessDenied: .http
        case .tooLarge: .tooLarge
        case .unsupportedFormat, .codecUnavailable: .unsupportedFormat
        case .limitExceeded, .tooExpensive: .limitExceeded
        case .corrupt, .processingFailed: .corrupt
        case .unreadableFile, .encodingFailed, .cancelled, .other: .io
        }
        self.init(kind: kind, message: failure.message, status: failure.httpStatus)
    }

    init(kind: Kind, message: String, status: Int? = nil) {
        self.kind = kind
        self.message = message
        self.status = status
    }
}

import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// Why the service refused or failed a request: an HTTP status and a JSON body
/// `{"kind", "message"}`. Every failure a request can cause maps onto one of these, so no
/// input produces a 500.
public struct ServiceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A stable name a client can act on (`badOption`, `badSignature`, `queueFull`, ...).
    public let kind: String
    /// The HTTP status.
    public let status: Int
    /// What went wrong, for a person; never a stack trace or internal detail.
    public let message: String
    /// Seconds a client should wait before retrying (`Retry-After`), for 429.
    public let retryAfter: Int?

    init(_ status: Int, _ kind: String, _ message: String, retryAfter: Int? = nil) {
        self.status = status
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
    }

    public var description: String { "\(status) \(kind): \(message)" }

    static func badURL(_ message: String) -> ServiceError { ServiceError(400, "badURL", message) }
    static func badOption(_ message: String) -> ServiceError { ServiceError(400, "badOption", message) }
    static func unsupportedOption(_ name: String) -> ServiceError {
        ServiceError(400, "unsupportedOption", "option '\(name)' is not supported by this server")
    }
    static func badSignature(_ message: String) -> ServiceError { ServiceError(403, "badSignature", message) }
    /// An option this server's URLs may not use (``URLParsing/allowedOptions``).
    static func forbiddenOption(_ name: String) -> ServiceError {
        ServiceError(403, "forbiddenOption", "the processing option '\(name)' is not allowed on this server")
    }
    static func forbiddenSource(_ message: String) -> ServiceError { ServiceError(403, "forbiddenSource", message) }
    static let expired = ServiceError(404, "expired", "the URL has expired")
    static let notFound = ServiceError(404, "notFound", "no such endpoint")
    static let queueFull = ServiceError(429, "queueFull", "too many requests are waiting; retry later", retryAfter: 1)
    static let timedOut = ServiceError(504, "timeout", "the request did not finish within its deadline")
    /// The client closed the connection before the answer (logged; nobody reads the body).
    static let clientGone = ServiceError(499, "clientClosedRequest", "the client closed the connection")
    static let shuttingDown = ServiceError(503, "shuttingDown", "the server is shutting down")

    /// The service's answer for a failure of the pipeline (or the encoder after it): the one
    /// place an ``ImageFailure`` becomes an HTTP status.
    static func from(_ error: any Error) -> ServiceError {
        if let error = error as? ServiceError { return error }
        // The encoding stage's single-flight loader wraps what its load threw.
        if let error = error as? LoadError<ResultJob> { return from(error.underlying) }
        // A URL's own source limit, checked by its first processor from the header.
        if case .processingFailed(_, let exceeded as SourceLimitExceeded)? = error as? ImagePipelineError {
            return ServiceError(422, exceeded.option == "max_src_file_size" ? "sourceFileTooLarge" : "tooManyPixels", exceeded.description)
        }
        let failure = ImageFailure(error)
        let message = failure.message
        switch failure.reason {
        case .invalidSource: return ServiceError(400, "badSource", message)
        case .forbiddenSource: return ServiceError(403, "forbiddenSource", message)
        case .httpStatus:
            let status = failure.httpStatus ?? 0
            if status == 404 || status == 410 { return ServiceError(404, "sourceNotFound", "the source answered HTTP \(status)") }
            return ServiceError(502, "sourceFailed", "the source answered HTTP \(status)")
        case .accessDenied:
            // The operator's configuration, not the client's request: a gateway error that names
            // the server's code and nothing of the credentials.
            return ServiceError(502, "sourceAccessDenied", message)
        case .network: return ServiceError(502, "sourceFailed", message)
        case .tooLarge: return ServiceError(413, "sourceTooLarge", message)
        case .timeout:
            // The loader's words say which stage ran out (connecting, waiting for the headers,
            // reading the body); the limit is the download's, retries included.
            return ServiceError(504, "timeout", "loading the source \(message) (the download's time limit, retries included)")
        case .unreadableFile: return ServiceError(404, "sourceNotFound", "the source cannot be read")
        case .notCached: return ServiceError(404, "notFound", "the source is not cached")
        case .unsupportedFormat: return ServiceError(415, "notAnImage", "the source is not a JPEG, PNG, WebP, GIF, HEIF, AVIF, JPEG XL, TIFF, BMP, ICO or SVG image")
        case .codecUnavailable:
            // The loader's text (library paths) goes to the server's log with the pipeline's
            // failure, not to the client.
            return ServiceError(415, "unsupportedFormat", "the source is a \(failure.format.map { "\($0)" } ?? "") image, which this server cannot decode")
        case .limitExceeded: return ServiceError(422, "tooManyPixels", "the source exceeds the pixel limits (refused from its header): \(message)")
        case .tooExpensive: return ServiceError(422, "tooExpensive", message)
        case .corrupt: return ServiceError(422, "corruptImage", "the source image cannot be decoded: \(message)")
        case .processingFailed: return ServiceError(422, "processingFailed", "processing failed: \(message)")
        case .encodingFailed: return ServiceError(422, "encodingFailed", "the result cannot be encoded: \(message)")
        case .cancelled: return ServiceError(503, "cancelled", "the request was cancelled")
        case .other: return ServiceError(502, "sourceFailed", "the request failed")
        }
    }

    /// The JSON body.
    var json: Data {
        let object: [String: Any] = ["kind": kind, "message": message]
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{\"kind\":\"error\",\"message\":\"\"}".utf8)
    }
}

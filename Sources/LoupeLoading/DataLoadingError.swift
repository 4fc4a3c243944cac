/// Why a load failed, in terms a caller can act on: retry, report, or give up.
public enum DataLoadingError: Error, Equatable, CustomStringConvertible {
    /// The URL cannot be loaded as given (no host, malformed data URL).
    case invalidURL(String)
    /// The URL's scheme is not one this loader handles.
    case unsupportedScheme(String)
    /// The server answered with a status outside 2xx (and not a requested 304).
    /// `retryAfter` is the server's `Retry-After`, in seconds, when it sent one.
    case httpStatus(Int, url: String, retryAfter: Double?)
    /// The body is larger than the configured limit; `declared` is the Content-Length when that
    /// alone was enough to refuse it (nothing of the body was read then).
    case tooLarge(limit: Int, declared: Int?)
    /// The download ran out of time; the stage says where it was when it did.
    case timedOut(TimeoutStage)
    /// More redirects than allowed, or a redirect cycle.
    case tooManyRedirects(limit: Int)
    /// The connection failed or broke (refused, reset, closed early).
    case network(String)
    /// The server's answer breaks HTTP (e.g. fewer bytes than its Content-Length).
    case invalidResponse(String)
    /// A local file could not be read.
    case file(path: String, reason: String)
    /// The host resolved to an address the loader's ``NetworkAddressPolicy`` refuses (a
    /// private, loopback or link-local address: the SSRF guard).
    case forbiddenAddress(String)
    /// The request cannot be sent as given: a method or header name that is not an HTTP token,
    /// a header value with a line break or another control character.
    case invalidRequest(String)
    /// The source server refused the loader's own credentials or configuration — S3's
    /// `AccessDenied`, `SignatureDoesNotMatch`, `InvalidAccessKeyId`, a wrong region or clock —
    /// which the operator, not the caller, must fix. `code` is the server's error code (never
    /// its message, which may quote the signature); `url` the source as named.
    case accessDenied(status: Int, code: String, url: String)

    /// Where a download was when its time ran out.
    public enum TimeoutStage: String, Sendable, Equatable {
        /// Resolving the host name or connecting (the connect timeout, or the download's limit
        /// passing first).
        case connect
        /// Connected (or connecting) and waiting for the response headers: a source that never
        /// answers.
        case response
        /// Reading the body: a source that sends too slowly.
        case body
        /// The download's limit, for a loader that cannot tell the stage.
        case total
    }

    /// Whether trying again later may succeed: connection trouble, timeouts, 5xx, 408 and 429.
    public var isTransient: Bool {
        switch self {
        case .network, .timedOut: true
        case .httpStatus(let status, _, _): status >= 500 || status == 429 || status == 408
        default: false
        }
    }

    public var description: String {
        switch self {
        case .invalidURL(let url): "invalid URL: \(url)"
        case .unsupportedScheme(let scheme): "unsupported URL scheme '\(scheme)'"
        case .httpStatus(let status, let url, _): "HTTP \(status) from \(url)"
        case .tooLarge(let limit, let declared?): "body of \(declared) bytes exceeds the \(limit)-byte limit"
        case .tooLarge(let limit, nil): "body exceeds the \(limit)-byte limit"
        case .timedOut(.connect): "timed out connecting"
        case .timedOut(.response): "timed out waiting for the response headers"
        case .timedOut(.body): "timed out reading the body"
        case .timedOut(.total): "timed out"
        case .tooManyRedirects(let limit): "more than \(limit) redirects, or a redirect cycle"
        case .network(let reason): "network error: \(reason)"
        case .invalidResponse(let reason): "invalid response: \(reason)"
        case .file(let path, let reason): "cannot read \(path): \(reason)"
        case .forbiddenAddress(let address): "connecting to \(address) is not allowed (not a public address)"
        case .invalidRequest(let reason): "the request cannot be sent: \(reason)"
        case .accessDenied(let status, let code, let url):
            "\(url) was refused with \(code) (HTTP \(status)): check the server's S3 credentials, region, endpoint and clock"
        }
    }
}

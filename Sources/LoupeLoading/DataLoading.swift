import Foundation

/// Fetches the bytes behind a URL: the seam between the pipeline and the network (or the file
/// system), so a loader can be swapped — AsyncHTTPClient, URLSession, a test double.
///
/// A loader checks what it receives (status, size, timeouts, redirects) and reports problems as
/// ``DataLoadingError``; cancellation of the calling task aborts the transfer and surfaces as
/// `CancellationError`. It does not retry (wrap it in ``RetryingDataLoader``) and does not cache.
public protocol DataLoading: Sendable {
    /// Loads `request`, calling `progress` as bytes arrive.
    func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse

    /// How long one download may take in all. ``RetryingDataLoader`` turns it into one deadline
    /// that every attempt shares, so retries stay within it instead of each getting all of it;
    /// `nil` (the default) for a loader without a limit of its own.
    var downloadTimeout: Duration? { get }
}

extension DataLoading {
    /// No limit of its own.
    public var downloadTimeout: Duration? { nil }

    /// Loads `request` without progress reports.
    public func loadData(for request: DataRequest) async throws -> DataResponse {
        try await loadData(for: request, progress: nil)
    }
}

/// Called with the bytes received so far and the total the server announced, if it did.
public typealias DataLoadingProgress = @Sendable (_ received: Int, _ expected: Int?) -> Void

/// What to fetch: a URL and how to ask for it — Loupe's own URL request value, so that asking
/// for one does not link FoundationNetworking.
///
/// ```swift
/// let request = DataRequest(url: url, headers: ["Authorization": "Bearer \(token)"], timeout: .seconds(10))
/// ```
public struct DataRequest: Sendable, Equatable {
    /// An `http`, `https`, `file` or `data` URL.
    public var url: URL
    /// The HTTP method, `GET` unless a server wants another (`POST` for an image an API renders
    /// from its query, say); a token of RFC 9110's characters, checked before anything is sent.
    public var method: String
    /// Extra request headers, e.g. `Authorization`, or `If-None-Match` to revalidate a cached
    /// copy. Names and values are checked before anything is sent: no line breaks, no controls.
    public var headers: [String: String]
    /// The longest this load may take, retries included; `nil` for the loader's own limit. A
    /// loader with a limit of its own keeps the shorter of the two.
    public var timeout: Duration?

    /// A request for `url`.
    ///
    /// - Parameters:
    ///   - url: an `http`, `https`, `file` or `data` URL.
    ///   - method: the HTTP method (`GET` by default).
    ///   - headers: extra request headers, by name.
    ///   - timeout: the longest the load may take, retries included; `nil` for the loader's limit.
    public init(url: URL, method: String = "GET", headers: [String: String] = [:], timeout: Duration? = nil) {
        self.url = url
        self.method = method
        self.headers = headers
        self.timeout = timeout
    }

    /// The shorter of ``timeout`` and a loader's own `limit`.
    public func timeLimit(within limit: Duration?) -> Duration? {
        guard let timeout else { return limit }
        guard let limit else { return timeout }
        return min(timeout, limit)
    }

    /// Refuses a method or header an HTTP/1.1 request cannot carry as given (a line break in a
    /// value would let a caller's input add headers of its own), before any connection.
    ///
    /// - Throws: ``DataLoadingError/invalidRequest(_:)`` naming what is wrong.
    public func checkMethodAndHeaders() throws {
        guard Self.isToken(method) else { throw DataLoadingError.invalidRequest("'\(method)' is not an HTTP method") }
        for (name, value) in headers {
            guard Self.isToken(name) else { throw DataLoadingError.invalidRequest("'\(name)' is not a header name") }
            // Field values: visible characters, spaces and tabs (and obsolete bytes past ASCII).
            guard value.utf8.allSatisfy({ $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }) else {
                throw DataLoadingError.invalidRequest("the value of header '\(name)' holds a control character")
            }
        }
    }

    /// Whether `text` is an RFC 9110 token (a method's or a header name's characters).
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// What came back: the body and what the server said about it.
public struct DataResponse: Sendable, Equatable {
    /// The body; empty for `304 Not Modified`.
    public var data: Data
    /// The HTTP status (200 for file and data URLs).
    public var statusCode: Int
    /// Response headers by lower-cased name; repeated headers are joined with ", ".
    public var headers: [String: String]
    /// The URL that answered, after redirects.
    public var url: URL

    /// A response.
    public init(data: Data, statusCode: Int, headers: [String: String], url: URL) {
        self.data = data
        self.statusCode = statusCode
        self.headers = headers
        self.url = url
    }

    /// The server confirmed that the copy named by the request's validators is still current.
    public var isNotModified: Bool { statusCode == 304 }

    /// The value of header `name` (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}

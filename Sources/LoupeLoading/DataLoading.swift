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

/// What to fetch.
public struct DataRequest: Sendable, Equatable {
    /// An `http`, `https`, `file` or `data` URL.
    public var url: URL
    /// Extra request headers, e.g. `If-None-Match` to revalidate a cached copy.
    public var headers: [String: String]

    /// A request for `url` with extra `headers`.
    public init(url: URL, headers: [String: String] = [:]) {
        self.url = url
        self.headers = headers
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

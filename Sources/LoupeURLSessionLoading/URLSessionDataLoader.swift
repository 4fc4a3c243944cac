import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoupeLoading
import NIOConcurrencyHelpers

/// Loads `http` and `https` URLs with Foundation's `URLSession` (libcurl on Linux).
///
/// The alternative to ``AsyncHTTPClientDataLoader`` for apps that already configure URLSession
/// (proxies, credentials). It runs its own delegate so the size limit and the redirect limit stop
/// a transfer as soon as they are crossed, not after the whole body has arrived. It never uses
/// `URLCache`: caching is the disk cache's job, with the server's validators.
///
/// In a module of its own because FoundationNetworking brings libcurl and its TLS, LDAP, SSH and
/// HTTP/2 libraries with it: linked into LoupeLoading, every process using Loupe (`loupe` itself,
/// each test bundle) paid ~9 ms more start-up CPU to map and relocate them, used or not.
public final class URLSessionDataLoader: DataLoading {
    /// The checks applied to every load.
    public let limits: HTTPLoadingLimits
    private let session: URLSession
    private let delegate: Delegate

    /// Creates a loader with an ephemeral session (no cookies, no URLCache).
    public init(limits: HTTPLoadingLimits = HTTPLoadingLimits()) {
        self.limits = limits
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        // URLSession has no connect timeout; its request timeout is the longest silence allowed.
        configuration.timeoutIntervalForRequest = Self.seconds(limits.connectTimeout)
        configuration.timeoutIntervalForResource = Self.seconds(limits.totalTimeout)
        configuration.httpMaximumConnectionsPerHost = 8
        delegate = Delegate(limits: limits)
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// The loader's own limit, ``HTTPLoadingLimits/totalTimeout``: retries share it.
    public var downloadTimeout: Duration? { limits.totalTimeout }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DataLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        guard request.url.host != nil else { throw DataLoadingError.invalidURL(request.url.absoluteString) }
        try request.checkMethodAndHeaders()
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        let timeLimit = request.timeLimit(within: limits.totalTimeout) ?? limits.totalTimeout
        let response = try await withTotalTimeout(timeLimit) { [session, delegate, urlRequest] in
            try await Self.transfer(urlRequest, session: session, delegate: delegate, progress: progress)
        }
        let status = response.statusCode
        guard (200..<300).contains(status) || status == 304 else {
            throw DataLoadingError.httpStatus(
                status, url: response.url.absoluteString, retryAfter: response.header("Retry-After").flatMap(RetryAfter.seconds))
        }
        return response
    }

    private static func transfer(
        _ urlRequest: URLRequest, session: URLSession, delegate: Delegate, progress: DataLoadingProgress?
    ) async throws -> DataResponse {
        let task = session.dataTask(with: urlRequest)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.start(task, progress: progress, continuation: continuation)
            }
        } onCancel: {
            task.cancel()
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// Collects each task's body and enforces the limits as data arrives.
    private final class Delegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: `limits` is an immutable value and every mutable
        // field lives in `transfers`, a NIOLockedValueBox (a pthread mutex) only touched inside
        // `withLockedValue`. URLSession calls the delegate on its own queue, hence the lock.
        let limits: HTTPLoadingLimits
        private let transfers = NIOLockedValueBox<[Int: Transfer]>([:])

        struct Transfer {
            var continuation: CheckedContinuation<DataResponse, any Error>
            var progress: DataLoadingProgress?
            var body = Data()
            var expected: Int?
            var failure: DataLoadingError?
            var visited: Set<String>
        }

        init(limits: HTTPLoadingLimits) {
            self.limits = limits
        }

        func start(_ task: URLSessionDataTask, progress: DataLoadingProgress?, continuation: CheckedContinuation<DataResponse, any Error>) {
            let visited: Set<String> = [task.originalRequest?.url?.absoluteString ?? ""]
            transfers.withLockedValue {
                $0[task.taskIdentifier] = Transfer(continuation: continuation, progress: progress, visited: visited)
            }
            task.resume()
        }

        /// Records why the transfer is being stopped, then cancels it.
        private func fail(_ task: URLSessionTask, _ error: DataLoadingError) {
            transfers.withLockedValue { $0[task.taskIdentifier]?.failure = error }
            task.cancel()
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
            let declared = response.expectedContentLength >= 0 ? Int(response.expectedContentLength) : nil
            if let declared, declared > limits.maximumBodySize {
                transfers.withLockedValue { $0[dataTask.taskIdentifier]?.failure = .tooLarge(limit: limits.maximumBodySize, declared: declared) }
                completionHandler(.cancel)
                return
            }
            transfers.withLockedValue { $0[dataTask.taskIdentifier]?.expected = declared }
            completionHandler(.allow)
        }

        func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
            let (report, overflow): ((DataLoadingProgress, Int, Int?)?, Bool) = transfers.withLockedValue { transfers in
                guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return (nil, false) }
                guard transfer.body.count + data.count <= limits.maximumBodySize else { return (nil, true) }
                transfers[dataTask.taskIdentifier] = nil // avoid a copy-on-write of the body
                transfer.body.append(data)
                let report = transfer.progress.map { ($0, transfer.body.count, transfer.expected) }
                transfers[dataTask.taskIdentifier] = transfer
                return (report, false)
            }
            if overflow { fail(dataTask, .tooLarge(limit: limits.maximumBodySize, declared: nil)) }
            if let (progress, received, expected) = report { progress(received, expected) }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            let target = request.url?.absoluteString ?? ""
            let allowed: Bool = transfers.withLockedValue { transfers in
                guard var transfer = transfers[task.taskIdentifier] else { return false }
                let isCycle = !transfer.visited.insert(target).inserted
                transfers[task.taskIdentifier] = transfer
                return !isCycle && transfer.visited.count - 1 <= limits.maximumRedirects
            }
            if allowed {
                completionHandler(request)
            } else {
                transfers.withLockedValue { $0[task.taskIdentifier]?.failure = .tooManyRedirects(limit: limits.maximumRedirects) }
                completionHandler(nil)
                task.cancel()
            }
        }

        func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
            guard let transfer = transfers.withLockedValue({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
            if let failure = transfer.failure {
                transfer.continuation.resume(throwing: failure)
                return
            }
            if let error {
                // libcurl ends a body that stops short of its Content-Length with
                // CURLE_PARTIAL_FILE, which FoundationNetworking reports as code -1 (unknown);
                // a reset comes as networkConnectionLost. Answered as AsyncHTTPClient's loader does.
                if let expected = transfer.expected, transfer.body.count < expected, (error as? URLError)?.code == .unknown {
                    transfer.continuation.resume(throwing: DataLoadingError.invalidResponse(
                        "the connection closed before the body reached its Content-Length"))
                    return
                }
                transfer.continuation.resume(throwing: translate(error))
                return
            }
            guard let http = task.response as? HTTPURLResponse, let url = http.url ?? task.originalRequest?.url else {
                transfer.continuation.resume(throwing: DataLoadingError.invalidResponse("no HTTP response"))
                return
            }
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            if let expected = transfer.expected, expected != transfer.body.count, http.statusCode != 304 {
                transfer.continuation.resume(throwing: DataLoadingError.invalidResponse(
                    "received \(transfer.body.count) bytes, Content-Length said \(expected)"))
                return
            }
            transfer.continuation.resume(returning: DataResponse(data: transfer.body, statusCode: http.statusCode, headers: headers, url: url))
        }

        private func translate(_ error: any Error) -> any Error {
            guard let error = error as? URLError else { return DataLoadingError.network(String(describing: error)) }
            switch error.code {
            case .cancelled: return CancellationError()
            case .timedOut: return DataLoadingError.timedOut(.total)
            case .httpTooManyRedirects, .redirectToNonExistentLocation: return DataLoadingError.tooManyRedirects(limit: limits.maximumRedirects)
            case .badURL, .unsupportedURL: return DataLoadingError.invalidURL(error.localizedDescription)
            default: return DataLoadingError.network(error.localizedDescription)
            }
        }
    }
}

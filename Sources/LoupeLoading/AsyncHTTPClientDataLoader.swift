import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Loads `http` and `https` URLs with AsyncHTTPClient (SwiftNIO), the default HTTP loader.
///
/// Chosen over URLSession as the default by measurement on loopback (see the README's
/// benchmark section): it serves more requests per second for less CPU, streams bodies so a
/// size cap stops a transfer early, and cancels transfers promptly when the task is cancelled.
public final class AsyncHTTPClientDataLoader: DataLoading {
    /// The checks applied to every load.
    public let limits: HTTPLoadingLimits
    private let client: HTTPClient

    /// Creates a loader with its own connection pool on NIO's shared event loops.
    public init(limits: HTTPLoadingLimits = HTTPLoadingLimits()) {
        self.limits = limits
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: max(0, limits.maximumRedirects), allowCycles: false),
            timeout: .init(connect: TimeAmount(limits.connectTimeout)))
        configuration.httpVersion = .automatic
        // AsyncHTTPClient would otherwise retry a failed connection attempt (refused, say) with
        // its own backoff until the connect timeout, so a refused connection looked like a
        // timeout 10 s later. Refused is an answer: it fails now, and RetryingDataLoader decides
        // about retrying, with its bounded, jittered policy.
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        // Non-blocking: the client keeps itself alive until its connections are closed. No load
        // is running, since each one holds a reference to this loader.
        _ = client.shutdown()
    }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        guard let scheme = request.url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DataLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        guard request.url.host != nil else { throw DataLoadingError.invalidURL(request.url.absoluteString) }

        return try await withTotalTimeout(limits.totalTimeout) { [self] in
            try await load(request, progress: progress)
        }
    }

    private func load(_ request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        var httpRequest = HTTPClientRequest(url: request.url.absoluteString)
        httpRequest.method = .GET
        for (name, value) in request.headers { httpRequest.headers.add(name: name, value: value) }
        let deadline = NIODeadline.now() + TimeAmount(limits.totalTimeout)

        do {
            let response = try await client.execute(httpRequest, deadline: deadline)
            let headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { "\($0), \($1)" }
            let finalURL = response.url ?? request.url
            let status = Int(response.status.code)
            guard (200..<300).contains(status) || status == 304 else {
                throw DataLoadingError.httpStatus(
                    status, url: finalURL.absoluteString, retryAfter: headers["retry-after"].flatMap(RetryAfter.seconds))
            }
            let declared = headers["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            if let declared, declared > limits.maximumBodySize {
                // Refused from the header alone: dropping the response closes the stream.
                throw DataLoadingError.tooLarge(limit: limits.maximumBodySize, declared: declared)
            }
            var body = Data()
            if let declared { body.reserveCapacity(declared) }
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= limits.maximumBodySize else {
                    throw DataLoadingError.tooLarge(limit: limits.maximumBodySize, declared: nil)
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                progress?(body.count, declared)
            }
            if let declared, declared != body.count, status != 304 {
                throw DataLoadingError.invalidResponse("received \(body.count) bytes, Content-Length said \(declared)")
            }
            return DataResponse(data: body, statusCode: status, headers: headers, url: finalURL)
        } catch let error as DataLoadingError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw translate(error)
        }
    }

    /// Maps AsyncHTTPClient's and NIO's errors onto ``DataLoadingError``.
    private func translate(_ error: any Error) -> any Error {
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return CancellationError()
            case .connectTimeout: return DataLoadingError.timedOut(.connect)
            case .deadlineExceeded, .readTimeout, .writeTimeout: return DataLoadingError.timedOut(.total)
            case .redirectLimitReached, .redirectCycleDetected:
                return DataLoadingError.tooManyRedirects(limit: limits.maximumRedirects)
            case .remoteConnectionClosed: return DataLoadingError.network("the server closed the connection early")
            case .invalidURL, .emptyHost, .emptyScheme: return DataLoadingError.invalidURL(String(describing: error))
            default: return DataLoadingError.network(String(describing: error))
            }
        }
        // A response that breaks HTTP/1.1: above all a body that ends before its Content-Length
        // (the connection closed early, in order), which NIO's decoder reports as an EOF in the
        // wrong state. The same answer as when the count is checked after the body.
        if let error = error as? HTTPParserError {
            if case .invalidEOFState = error {
                return DataLoadingError.invalidResponse("the connection closed before the body reached its Content-Length")
            }
            return DataLoadingError.invalidResponse(String(describing: error))
        }
        // NIO's connection errors (refused, reset, unreachable) and anything else from below.
        return DataLoadingError.network(String(describing: error))
    }
}

extension TimeAmount {
    /// A NIO time amount from a Swift `Duration`, saturating instead of overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = overflow ? .nanoseconds(.max) : .nanoseconds(nanoseconds &+ attoseconds / 1_000_000_000)
    }
}

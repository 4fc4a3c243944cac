import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// Loads `http` and `https` URLs with AsyncHTTPClient (SwiftNIO), the default HTTP loader.
///
/// Chosen over URLSession as the default by measurement on loopback (BENCHMARKS.md,
/// caching and loading): it serves more requests per second for less CPU, streams bodies so a
/// size cap stops a transfer early, and cancels transfers promptly when the task is cancelled.
public final class AsyncHTTPClientDataLoader: DataLoading {
    /// The checks applied to every load.
    public let limits: HTTPLoadingLimits
    /// The addresses connections may go to (checked on every connection, redirects included).
    public let addressPolicy: NetworkAddressPolicy
    private let client: HTTPClient

    /// Creates a loader with its own connection pool on NIO's shared event loops; connections
    /// go only to addresses `addressPolicy` allows (by default, any).
    public init(limits: HTTPLoadingLimits = HTTPLoadingLimits(), addressPolicy: NetworkAddressPolicy = .unrestricted) {
        self.limits = limits
        self.addressPolicy = addressPolicy
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .follow(max: max(0, limits.maximumRedirects), allowCycles: false),
            timeout: .init(connect: TimeAmount(limits.connectTimeout)))
        configuration.httpVersion = .automatic
        // AsyncHTTPClient would otherwise retry a failed connection attempt (refused, say) with
        // its own backoff until the connect timeout, so a refused connection looked like a
        // timeout 10 s later. Refused is an answer: it fails now, and RetryingDataLoader decides
        // about retrying, with its bounded, jittered policy.
        configuration.connectionPool.retryConnectionEstablishment = false
        if addressPolicy != .unrestricted {
            // The SSRF guard at connect time: AsyncHTTPClient calls these with each new
            // connection's channel, after the connect (and TLS) and before any request is
            // written on it; a failed future fails the connection. The peer is the address
            // actually connected to, after whatever DNS answered at that moment, so DNS
            // rebinding and redirects to private hosts are caught on every hop.
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                guard let peer = channel.remoteAddress else {
                    return channel.eventLoop.makeFailedFuture(ForbiddenAddress(address: "unknown"))
                }
                guard addressPolicy.allows(peer) else {
                    return channel.eventLoop.makeFailedFuture(ForbiddenAddress(address: peer.ipAddress ?? "\(peer)"))
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
        }
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
        guard let host = request.url.host else { throw DataLoadingError.invalidURL(request.url.absoluteString) }
        // The guard before connecting: every address the name resolves to now must be allowed.
        // Connections are checked again when made (see init), for redirects and for a name that
        // resolves differently by then.
        if addressPolicy != .unrestricted, let refused = await addressPolicy.refusedAddress(resolving: host) {
            throw DataLoadingError.forbiddenAddress(refused)
        }

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
        if let error = error as? ForbiddenAddress { return DataLoadingError.forbiddenAddress(error.address) }
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

/// The connect-time guard's refusal, carried through AsyncHTTPClient's connection pool.
struct ForbiddenAddress: Error {
    let address: String
}

extension TimeAmount {
    /// A NIO time amount from a Swift `Duration`, saturating instead of overflowing.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        self = overflow ? .nanoseconds(.max) : .nanoseconds(nanoseconds &+ attoseconds / 1_000_000_000)
    }
}

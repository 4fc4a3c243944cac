import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// Loads `http` and `https` URLs with AsyncHTTPClient (SwiftNIO), the default HTTP loader.
///
/// Chosen over URLSession as the default by measurement on loopback (BENCHMARKS.md,
/// caching and loading): it serves more requests per second for less CPU, streams bodies so a
/// size cap stops a transfer early, and cancels transfers promptly when the task is cancelled.
///
/// Redirects are followed here, hop by hop, not by the client: with a guarding
/// ``NetworkAddressPolicy``, each hop's name is resolved once, every address checked, and the
/// connection made only to a checked address (`PinnedHTTPClients`), so a refused hop gets no
/// packet and the same answer whether anything listens there or not.
public final class AsyncHTTPClientDataLoader: DataLoading {
    /// The checks applied to every load.
    public let limits: HTTPLoadingLimits
    /// The addresses connections may go to (checked before every connection, redirects included).
    public let addressPolicy: NetworkAddressPolicy
    /// The client for every host when the policy guards nothing: it resolves names itself.
    private let unguarded: OwnedHTTPClient?
    /// One client per checked (name, address) when the policy guards.
    private let pinned: PinnedHTTPClients
    /// Whether a status outside 2xx and 304 is returned as a response, with the start of its
    /// body, instead of thrown: for a loader on top that reads the server's error document
    /// (S3's XML `Code`).
    let returnsErrorResponses: Bool
    /// Where bodies cut off are kept, for the next load of their resource to resume; `nil` for
    /// a loader that always starts over.
    public let resumableDownloads: ResumableDownloads?

    /// The redirect statuses followed (as browsers and AsyncHTTPClient do), with a `Location`.
    private static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// Creates a loader with its own connection pools on NIO's shared event loops; connections
    /// go only to addresses `addressPolicy` allows (by default, any).
    ///
    /// - Parameters:
    ///   - limits: the size, time and redirect limits of every load.
    ///   - addressPolicy: the addresses connections may go to.
    ///   - resumableDownloads: where bodies cut off are kept so the next load of their resource
    ///     asks only for the rest; by default a store of its own with the default bounds, `nil`
    ///     to always start over.
    public convenience init(limits: HTTPLoadingLimits = HTTPLoadingLimits(), addressPolicy: NetworkAddressPolicy = .unrestricted,
                            resumableDownloads: ResumableDownloads? = ResumableDownloads()) {
        self.init(limits: limits, addressPolicy: addressPolicy, returnsErrorResponses: false, resumableDownloads: resumableDownloads)
    }

    /// A loader that, with `returnsErrorResponses`, answers an error status with a response
    /// holding at most ``errorBodyLimit`` bytes of its body.
    package init(limits: HTTPLoadingLimits, addressPolicy: NetworkAddressPolicy, returnsErrorResponses: Bool,
                 resumableDownloads: ResumableDownloads? = nil) {
        self.returnsErrorResponses = returnsErrorResponses
        self.resumableDownloads = resumableDownloads
        self.limits = limits
        self.addressPolicy = addressPolicy
        let make: @Sendable ([String: String]) -> HTTPClient.Configuration = { dnsOverride in
            Self.configuration(limits: limits, addressPolicy: addressPolicy, dnsOverride: dnsOverride)
        }
        unguarded = addressPolicy.allowsPrivateNetworks ? OwnedHTTPClient(configuration: make([:])) : nil
        pinned = PinnedHTTPClients(makeConfiguration: make)
    }

    private static func configuration(limits: HTTPLoadingLimits, addressPolicy: NetworkAddressPolicy,
                                      dnsOverride: [String: String]) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow, timeout: .init(connect: TimeAmount(limits.connectTimeout)))
        configuration.httpVersion = .automatic
        configuration.dnsOverride = dnsOverride
        // AsyncHTTPClient would otherwise retry a failed connection attempt (refused, say) with
        // its own backoff until the connect timeout, so a refused connection looked like a
        // timeout 10 s later. Refused is an answer: it fails now, and RetryingDataLoader decides
        // about retrying, with its bounded, jittered policy.
        configuration.connectionPool.retryConnectionEstablishment = false
        if !addressPolicy.allowsPrivateNetworks {
            // Defence in depth behind the check before connecting: the peer of each new
            // connection, after the connect (and TLS) and before any request is written on it,
            // must pass too. It can only fail if a connection escaped its pinned address.
            let check: @Sendable (any Channel) -> EventLoopFuture<Void> = { channel in
                guard let peer = channel.remoteAddress, addressPolicy.allows(peer) else {
                    let address = channel.remoteAddress?.ipAddress ?? "unknown"
                    return channel.eventLoop.makeFailedFuture(ForbiddenAddress(address: address))
                }
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            configuration.http1_1ConnectionDebugInitializer = check
            configuration.http2ConnectionDebugInitializer = check
        }
        return configuration
    }

    /// The loader's own limit, ``HTTPLoadingLimits/totalTimeout``: retries share it.
    public var downloadTimeout: Duration? { limits.totalTimeout }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        try Self.checkSchemeAndHost(request.url)
        try request.checkMethodAndHeaders()
        let timeLimit = request.timeLimit(within: limits.totalTimeout) ?? limits.totalTimeout
        let stage = NIOLockedValueBox(DataLoadingError.TimeoutStage.connect)
        let partial = resumableDownloads?.take(for: request)
        return try await withTotalTimeout(timeLimit, stage: { stage.withLockedValue { $0 } }) { [self] in
            do {
                return try await load(request, resuming: partial, timeLimit: timeLimit, progress: progress, stage: stage)
            } catch is ResumeRefused {
                // The server's answer to the range does not continue the bytes kept: once more,
                // for the whole body, within the same time limit.
                return try await load(request, resuming: nil, timeLimit: timeLimit, progress: progress, stage: stage)
            } catch {
                // Failed before a body came (refused, timed out, cancelled): the bytes kept wait
                // for the next load, unless that body was cut off and kept in their place.
                if let partial, Self.mayResumeAfter(error) { resumableDownloads?.restore(partial, for: request) }
                throw error
            }
        }
    }

    /// Whether a load that failed with `error` leaves its resource worth resuming: the network,
    /// a timeout or the caller ended it, not the server's answer.
    private static func mayResumeAfter(_ error: any Error) -> Bool {
        switch error {
        case is CancellationError: true
        case DataLoadingError.network, DataLoadingError.timedOut: true
        default: false
        }
    }

    private static func checkSchemeAndHost(_ url: URL) throws {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw DataLoadingError.unsupportedScheme(url.scheme ?? "")
        }
        guard let host = url.host, !host.isEmpty else { throw DataLoadingError.invalidURL(url.absoluteString) }
    }

    /// Follows `request`'s redirects, each hop checked before it connects, and reads the last
    /// hop's answer, asking only for the bytes after `partial`'s when given; `stage` tracks
    /// where the load is, for a timeout's message.
    private func load(_ request: DataRequest, resuming partial: PartialDownload?, timeLimit: Duration, progress: DataLoadingProgress?,
                      stage: NIOLockedValueBox<DataLoadingError.TimeoutStage>) async throws -> DataResponse {
        let deadline = NIODeadline.now() + TimeAmount(timeLimit)
        var url = request.url
        var hop = partial?.resuming(request) ?? request
        var visited: Set<String> = [url.absoluteString]
        do {
            // Bounded: every turn but the last follows a redirect, at most `maximumRedirects`,
            // each to a URL not visited before.
            while true {
                stage.withLockedValue { $0 = .connect }
                let owner = try await client(for: url)
                stage.withLockedValue { $0 = .response }
                var httpRequest = HTTPClientRequest(url: url.absoluteString)
                httpRequest.method = HTTPMethod(rawValue: hop.method)
                for (name, value) in hop.headers { httpRequest.headers.add(name: name, value: value) }
                let response = try await owner.client.execute(httpRequest, deadline: deadline)
                let status = Int(response.status.code)
                if Self.redirectStatuses.contains(status), let location = response.headers.first(name: "location") {
                    // The redirect's own body is dropped unread, which closes its stream.
                    let target = try redirectTarget(location, from: url, status: status, visited: &visited)
                    hop = Self.redirected(hop, to: target, status: status)
                    url = target
                    continue
                }
                stage.withLockedValue { $0 = .body }
                let result = try await read(response, from: url, for: request, resuming: partial, progress: progress)
                // The client (with the connection the body came on) lives until the body is read.
                withExtendedLifetime(owner) {}
                return result
            }
        } catch let error as DataLoadingError {
            throw error
        } catch let refused as ResumeRefused {
            throw refused
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw translate(error, stage: stage.withLockedValue { $0 })
        }
    }

    /// The client that connects to `url`'s host: with a guarding policy, only after the name is
    /// resolved and every address checked, and then to a checked address only.
    private func client(for url: URL) async throws -> OwnedHTTPClient {
        if let unguarded { return unguarded }
        guard let host = url.host, !host.isEmpty else { throw DataLoadingError.invalidURL(url.absoluteString) }
        let address = try await addressPolicy.connectableAddress(for: host)
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return pinned.client(host: name, address: address)
    }

    /// Where a redirect from `url` goes, or why it is not followed: over the redirect limit, a
    /// cycle, or not an http(s) URL.
    private func redirectTarget(_ location: String, from url: URL, status: Int, visited: inout Set<String>) throws -> URL {
        guard visited.count <= limits.maximumRedirects else {
            throw DataLoadingError.tooManyRedirects(limit: limits.maximumRedirects)
        }
        guard let target = URL(string: location, relativeTo: url)?.absoluteURL,
              let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = target.host, !host.isEmpty
        else {
            throw DataLoadingError.invalidResponse("HTTP \(status) redirects to '\(location)', which is not an http(s) URL")
        }
        guard visited.insert(target.absoluteString).inserted else {
            throw DataLoadingError.tooManyRedirects(limit: limits.maximumRedirects)
        }
        return target
    }

    /// The request a redirect's next hop sends, as browsers and curl send it: `GET` after a 303
    /// (and after a 301 or 302 of anything but `HEAD`), the method kept after a 307 or 308; and
    /// without the caller's credentials when the redirect leaves the origin (scheme, host or
    /// port) they were meant for, so a redirect cannot hand a bearer token to another server.
    static func redirected(_ request: DataRequest, to target: URL, status: Int) -> DataRequest {
        var next = request
        next.url = target
        let method = request.method.uppercased()
        if status == 303 && method != "HEAD" || (status == 301 || status == 302) && method != "GET" && method != "HEAD" {
            next.method = "GET"
        }
        let source = request.url
        let sameOrigin = source.scheme?.lowercased() == target.scheme?.lowercased() && source.host?.lowercased() == target.host?.lowercased()
            && Self.port(of: source) == Self.port(of: target)
        if !sameOrigin {
            next.headers = next.headers.filter { name, _ in !Self.credentialHeaders.contains(name.lowercased()) }
        }
        return next
    }

    /// The headers that carry a caller's credentials for one origin.
    private static let credentialHeaders: Set<String> = ["authorization", "cookie", "proxy-authorization"]

    private static func port(of url: URL) -> Int {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
    }

    /// The final hop's answer: its status checked, its body read within the size limit. With
    /// `partial`, a `206` that continues it is appended to it and answered as the whole body
    /// (`200`); a `416` or a range that does not continue it throws ``ResumeRefused``. A body
    /// cut off while read is kept for `request`'s next load, when it can be resumed.
    private func read(_ response: HTTPClientResponse, from url: URL, for request: DataRequest, resuming partial: PartialDownload?,
                      progress: DataLoadingProgress?) async throws -> DataResponse {
        var headers = Dictionary(response.headers.map { ($0.name.lowercased(), $0.value) }) { "\($0), \($1)" }
        var status = Int(response.status.code)
        let resumed = partial != nil && status == 206
        if let partial, status == 416 || resumed && !partial.isContinued(by: headers["content-range"]) { throw ResumeRefused() }
        guard (200..<300).contains(status) || status == 304 else {
            if returnsErrorResponses { return try await readErrorBody(response, status: status, headers: headers, from: url) }
            throw DataLoadingError.httpStatus(
                status, url: url.absoluteString, retryAfter: headers["retry-after"].flatMap(RetryAfter.seconds))
        }
        let start = resumed ? partial?.data ?? Data() : Data()
        let declared = headers["content-length"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        if let declared, start.count + declared > limits.maximumBodySize {
            // Refused from the header alone: dropping the response closes the stream.
            throw DataLoadingError.tooLarge(limit: limits.maximumBodySize, declared: start.count + declared)
        }
        let expected = declared.map { start.count + $0 }
        var body = start
        if let expected { body.reserveCapacity(expected) }
        let bodyObserver = BodyObserver.current
        do {
            for try await chunk in response.body {
                guard body.count + chunk.readableBytes <= limits.maximumBodySize else {
                    throw DataLoadingError.tooLarge(limit: limits.maximumBodySize, declared: nil)
                }
                chunk.withUnsafeReadableBytes { body.append(contentsOf: $0) }
                progress?(body.count, expected)
                bodyObserver?.callback(body)
            }
        } catch {
            // Cut off by the network, a timeout or the caller leaving (not refused here): what
            // arrived is kept for the next load, which asks for the rest.
            if !(error is DataLoadingError), status == 200 || resumed {
                keepCutOffBody(body, headers: resumed ? partial?.headers ?? headers : headers, expected: expected, for: request)
            }
            throw error
        }
        if let expected, expected != body.count, status != 304 {
            throw DataLoadingError.invalidResponse("received \(body.count - start.count) bytes, Content-Length said \(expected - start.count)")
        }
        if resumed, let partial {
            headers = partial.completedHeaders(updatedBy: headers, length: body.count)
            status = 200
        }
        return DataResponse(data: body, statusCode: status, headers: headers, url: url)
    }

    /// Keeps what arrived of a body cut off, with its full response's `headers`, if the store
    /// and the response allow resuming it.
    private func keepCutOffBody(_ body: Data, headers: [String: String], expected: Int?, for request: DataRequest) {
        guard let resumableDownloads, resumableDownloads.isResumable(request),
              let partial = PartialDownload(data: body, headers: headers, completeLength: expected) else { return }
        resumableDownloads.keep(partial, for: request)
    }

    /// The most of an error answer's body that is kept: an error document is small, and the
    /// rest is never read.
    static let errorBodyLimit = 64 * 1024

    /// An error answer with the start of its body, at most ``errorBodyLimit`` bytes.
    private func readErrorBody(_ response: HTTPClientResponse, status: Int, headers: [String: String], from url: URL) async throws -> DataResponse {
        var body = Data()
        for try await chunk in response.body {
            let room = Self.errorBodyLimit - body.count
            chunk.withUnsafeReadableBytes { body.append(contentsOf: $0.prefix(room)) }
            // Dropping the stream here closes it; the rest of a long error body is not wanted.
            if body.count >= Self.errorBodyLimit { break }
        }
        return DataResponse(data: body, statusCode: status, headers: headers, url: url)
    }

    /// Maps AsyncHTTPClient's and NIO's errors onto ``DataLoadingError``.
    private func translate(_ error: any Error, stage: DataLoadingError.TimeoutStage) -> any Error {
        if let error = error as? ForbiddenAddress { return DataLoadingError.forbiddenAddress(error.address) }
        if let error = error as? HTTPClientError {
            switch error {
            case .cancelled: return CancellationError()
            case .connectTimeout: return DataLoadingError.timedOut(.connect)
            case .deadlineExceeded, .readTimeout, .writeTimeout: return DataLoadingError.timedOut(stage)
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

/// A resumed load's answer that does not continue the bytes kept: the load starts over.
private struct ResumeRefused: Error {}

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

import NIOConcurrencyHelpers
import LoupeOrigin
import LoupeTestSupport
import Foundation
import Testing
@testable import LoupeLoading
import LoupeURLSessionLoading

/// Which HTTP loader a parameterized test runs against: every test runs against both.
enum LoaderKind: String, CaseIterable, Sendable, CustomStringConvertible {
    case asyncHTTPClient
    case urlSession

    func make(_ limits: HTTPLoadingLimits = HTTPLoadingLimits()) -> any DataLoading {
        switch self {
        case .asyncHTTPClient: AsyncHTTPClientDataLoader(limits: limits)
        case .urlSession: URLSessionDataLoader(limits: limits)
        }
    }

    var description: String { rawValue }
}

/// Deterministic bytes of a given size, so a body can be compared byte for byte.
func payload(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

/// The HTTP loaders against a real nginx on loopback.
@Suite(.serialized) final class HTTPDataLoaderTests: Sendable {
    let server: NginxServer
    let image = payload(100_000)

    init() throws {
        server = try NginxServer.start(files: ["image.bin": image, "big.bin": payload(300_000, seed: 3)])
    }

    deinit { server.stop() }

    @Test(arguments: LoaderKind.allCases)
    func loadsTheBodyWithHeadersAndProgress(kind: LoaderKind) async throws {
        let progress = ProgressLog()
        let response = try await kind.make().loadData(for: DataRequest(url: server.url("image.bin"))) { received, expected in
            progress.record(received, expected)
        }
        #expect(response.statusCode == 200)
        #expect(response.data == image)
        #expect(response.header("ETag")?.isEmpty == false)
        #expect(response.header("content-length") == "100000")
        let reports = progress.all
        #expect(reports.last?.received == 100_000)
        #expect(reports.allSatisfy { $0.expected == 100_000 })
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.received < $1.received }, "progress only grows")
    }

    @Test(arguments: LoaderKind.allCases)
    func aMatchingETagGives304WithoutABody(kind: LoaderKind) async throws {
        let loader = kind.make()
        let first = try await loader.loadData(for: DataRequest(url: server.url("image.bin")))
        let etag = try #require(first.header("ETag"))
        let second = try await loader.loadData(for: DataRequest(url: server.url("image.bin"), headers: ["If-None-Match": etag]))
        #expect(second.isNotModified)
        #expect(second.data.isEmpty)
    }

    @Test(arguments: LoaderKind.allCases)
    func errorStatusesAreTyped(kind: LoaderKind) async throws {
        let loader = kind.make()
        await #expect(throws: DataLoadingError.httpStatus(404, url: server.url("status/404").absoluteString, retryAfter: nil)) {
            try await loader.loadData(for: DataRequest(url: self.server.url("status/404")))
        }
        await #expect(throws: DataLoadingError.httpStatus(429, url: server.url("status/429").absoluteString, retryAfter: 1)) {
            try await loader.loadData(for: DataRequest(url: self.server.url("status/429")))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aDeclaredBodyOverTheLimitIsRefusedFromItsHeader(kind: LoaderKind) async throws {
        let loader = kind.make(HTTPLoadingLimits(maximumBodySize: 200_000))
        await #expect(throws: DataLoadingError.tooLarge(limit: 200_000, declared: 300_000)) {
            try await loader.loadData(for: DataRequest(url: self.server.url("big.bin")))
        }
        // The same loader still works afterwards.
        #expect(try await loader.loadData(for: DataRequest(url: server.url("image.bin"))).data == image)
    }

    @Test(arguments: LoaderKind.allCases)
    func redirectsAreFollowedUpToTheLimit(kind: LoaderKind) async throws {
        let response = try await kind.make(HTTPLoadingLimits(maximumRedirects: 3)).loadData(for: DataRequest(url: server.url("hop3")))
        #expect(response.data == image)
        #expect(response.url.path == "/image.bin")
        await #expect(throws: DataLoadingError.tooManyRedirects(limit: 2)) {
            try await kind.make(HTTPLoadingLimits(maximumRedirects: 2)).loadData(for: DataRequest(url: self.server.url("hop3")))
        }
        await #expect(throws: DataLoadingError.tooManyRedirects(limit: 5)) {
            try await kind.make().loadData(for: DataRequest(url: self.server.url("loop")))
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aSlowBodyHitsTheTotalTimeout(kind: LoaderKind) async throws {
        // nginx drips /slow/ at 4 KB/s: 100 KB would take 25 s.
        let loader = kind.make(HTTPLoadingLimits(connectTimeout: .seconds(2), totalTimeout: .milliseconds(1_500)))
        let start = ContinuousClock.now
        // AsyncHTTPClient's loader knows it was reading the body; URLSession's cannot tell.
        await #expect(throws: DataLoadingError.timedOut(kind == .asyncHTTPClient ? .body : .total)) {
            try await loader.loadData(for: DataRequest(url: self.server.url("slow/image.bin")))
        }
        #expect(ContinuousClock.now - start < .seconds(6))
    }

    @Test(arguments: LoaderKind.allCases)
    func aRefusedConnectionIsANetworkError(kind: LoaderKind) async throws {
        let closedPort = try freeLoopbackPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(closedPort)/image.bin"))
        // Refused is an answer: it fails at once, not after the connect timeout (retrying is the
        // RetryingDataLoader's decision, with its own bounded backoff).
        let start = ContinuousClock.now
        defer { #expect(ContinuousClock.now - start < .seconds(60), "a refused connection must not wait for the 120 s connect timeout") }
        do {
            _ = try await kind.make(HTTPLoadingLimits(connectTimeout: .seconds(120))).loadData(for: DataRequest(url: url))
            Issue.record("nothing listens on \(closedPort)")
        } catch let error as DataLoadingError {
            guard case .network = error else { throw error }
            #expect(error.isTransient)
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func cancellingTheCallerAbortsTheTransfer(kind: LoaderKind) async throws {
        let loader = kind.make()
        let task = Task { try await loader.loadData(for: DataRequest(url: self.server.url("slow/big.bin"))) }
        try await Task.sleep(for: .milliseconds(300))
        let start = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(ContinuousClock.now - start < .seconds(3), "a 75 s transfer must stop at once")
    }

    @Test(arguments: LoaderKind.allCases)
    func nonHTTPSchemesAreRefused(kind: LoaderKind) async throws {
        await #expect(throws: DataLoadingError.unsupportedScheme("ftp")) {
            try await kind.make().loadData(for: DataRequest(url: try #require(URL(string: "ftp://127.0.0.1/x"))))
        }
    }

    /// nginx never sends less than it announces; the embedded origin does on demand.
    @Test(arguments: LoaderKind.allCases)
    func aBodyShorterThanItsContentLengthIsAnInvalidResponse(kind: LoaderKind) async throws {
        try await OriginServer.run(handler: { _ in
            OriginResponse(body: payload(40_000), fault: .declaredLength(100_000))
        }) { origin in
            do {
                _ = try await kind.make().loadData(for: DataRequest(url: origin.url("/short")))
                Issue.record("a short body loaded")
            } catch let error as DataLoadingError {
                guard case .invalidResponse = error else { throw error }
                #expect(!error.isTransient)
            }
        }
    }

    @Test(arguments: LoaderKind.allCases)
    func aResetMidBodyIsATransientNetworkError(kind: LoaderKind) async throws {
        try await OriginServer.run(handler: { _ in
            OriginResponse(body: payload(100_000), fault: .resetAfter(bytes: 30_000))
        }) { origin in
            do {
                _ = try await kind.make().loadData(for: DataRequest(url: origin.url("/reset")))
                Issue.record("a reset body loaded")
            } catch let error as DataLoadingError {
                guard case .network = error else { throw error }
                #expect(error.isTransient)
            }
        }
    }

    @Test func retriesTransientFailuresAndHonoursRetryAfter() async throws {
        let waits = ProgressLog()
        let loader = RetryingDataLoader(
            AsyncHTTPClientDataLoader(),
            policy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10), maximumDelay: .milliseconds(20)),
            sleep: { delay in
                waits.record(Int(delay.components.seconds), nil)
                try await Task.sleep(for: .milliseconds(1))
            })
        await #expect(throws: DataLoadingError.httpStatus(503, url: server.url("status/503").absoluteString, retryAfter: nil)) {
            try await loader.loadData(for: DataRequest(url: self.server.url("status/503")))
        }
        #expect(server.requestCount(for: "/status/503") == 3)
        await #expect(throws: DataLoadingError.self) {
            try await loader.loadData(for: DataRequest(url: self.server.url("status/429")))
        }
        #expect(server.requestCount(for: "/status/429") == 3)
        #expect(waits.all.suffix(2).map(\.received) == [1, 1], "the two 429 retries waited Retry-After: 1")
        await #expect(throws: DataLoadingError.self) {
            try await loader.loadData(for: DataRequest(url: self.server.url("status/404")))
        }
        #expect(server.requestCount(for: "/status/404") == 1, "4xx is never retried")
    }
}

/// Records (received, expected) pairs from any thread.
final class ProgressLog: Sendable {
    struct Report: Sendable { var received: Int; var expected: Int? }
    private let reports = NIOLockedValueBox<[Report]>([])
    func record(_ received: Int, _ expected: Int?) { reports.withLockedValue { $0.append(Report(received: received, expected: expected)) } }
    var all: [Report] { reports.withLockedValue { $0 } }
}

import Foundation
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import LoupeLoading

/// One deadline per download, retries included, over real HTTP against the embedded origin's
/// slow sources: a retrying load ends at its loader's limit (plus a margin for a loaded machine),
/// however many attempts its policy allows, and says which stage ran out.
@Suite struct DownloadDeadlineTests {
    static let limit = Duration.seconds(1)
    /// Past the limit: the client's own set-up and a loaded machine (ThreadSanitizer, other
    /// tests). Less than a second attempt would add, and far less than the five allowed.
    static let margin = Duration.milliseconds(1_500)

    /// Five attempts allowed, retried at once: only the download's limit ends them.
    func retryingLoader() -> RetryingDataLoader<AsyncHTTPClientDataLoader> {
        RetryingDataLoader(
            AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(connectTimeout: .seconds(1), totalTimeout: Self.limit),
                                      addressPolicy: NetworkAddressPolicy(permittedAddresses: ["127.0.0.1"])),
            policy: RetryPolicy(maximumAttempts: 5, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
    }

    /// A body of one byte a second, and a source that never sends its headers: each a timeout
    /// at the limit, naming its stage, after one attempt (a retry could not fit).
    @Test(arguments: [DataLoadingError.TimeoutStage.body, .response])
    func aStallingSourceTimesOutOnceAtTheLimit(stage: DataLoadingError.TimeoutStage) async throws {
        let response = stage == .body
            ? OriginResponse(body: Data(repeating: 0xFF, count: 100), fault: .drip(chunkBytes: 1, interval: .seconds(1)))
            : OriginResponse.ok(Data(repeating: 0xFF, count: 100), delay: .seconds(60))
        try await OriginServer.run(handler: { _ in response }) { origin in
            let start = ContinuousClock.now
            await #expect(throws: DataLoadingError.timedOut(stage)) {
                try await retryingLoader().loadData(for: DataRequest(url: origin.url("/stall")))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= Self.limit && elapsed < Self.limit + Self.margin, "\(elapsed)")
            #expect(origin.requestCount(for: "/stall") == 1, "no attempt after the deadline")
        }
    }

    /// Attempts that fail slowly (503 after 400 ms) are retried while time is left, and the
    /// download still ends at its limit: the third attempt gets what remains, not a full limit.
    @Test func retriesShareTheLimit() async throws {
        try await OriginServer.run(handler: { _ in OriginResponse(status: 503, delay: .milliseconds(400)) }) { origin in
            let start = ContinuousClock.now
            await #expect(throws: DataLoadingError.timedOut(.response)) {
                try await retryingLoader().loadData(for: DataRequest(url: origin.url("/busy")))
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed >= Self.limit && elapsed < Self.limit + Self.margin, "\(elapsed)")
            #expect((2...3).contains(origin.requestCount(for: "/busy")), "retried within the limit: \(origin.requestCount(for: "/busy"))")
        }
    }

    /// A retry whose delay would pass the deadline is not made: the last failure is the answer.
    @Test func aRetryThatCannotFitIsNotMade() async throws {
        try await OriginServer.run(handler: { _ in .status(503, headers: [("Retry-After", "5")]) }) { origin in
            let start = ContinuousClock.now
            await #expect(throws: DataLoadingError.httpStatus(503, url: origin.url("/later").absoluteString, retryAfter: 5)) {
                try await retryingLoader().loadData(for: DataRequest(url: origin.url("/later")))
            }
            #expect(ContinuousClock.now - start < Self.limit)
            #expect(origin.requestCount(for: "/later") == 1)
        }
    }

    /// The shared deadline only shortens a loader's own limit.
    @Test func theSharedDeadlineTakesTheSoonerEnd() {
        let now = ContinuousClock.now
        let soon = DownloadDeadline.$current.withValue(now.advanced(by: .seconds(2))) {
            DownloadDeadline.end(withLimit: .seconds(60))
        }
        #expect(soon == now.advanced(by: .seconds(2)))
        let own = DownloadDeadline.$current.withValue(now.advanced(by: .seconds(60))) {
            DownloadDeadline.end(withLimit: .seconds(1))
        }
        #expect(own < now.advanced(by: .seconds(2)))
        #expect(DownloadDeadline.end(withLimit: .seconds(1)) < ContinuousClock.now.advanced(by: .seconds(2)))
    }
}

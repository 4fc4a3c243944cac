import Foundation
import Testing
@testable import LoupeLoading

@Suite struct RetryPolicyTests {
    let policy = RetryPolicy(maximumAttempts: 4, initialDelay: .milliseconds(100), maximumDelay: .milliseconds(250), maximumRetryAfter: .seconds(5))
    let server503 = DataLoadingError.httpStatus(503, url: "http://127.0.0.1/", retryAfter: nil)

    @Test func delaysGrowWithJitterUnderTheirCaps() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let first = policy.delay(after: server503, attempt: 1, using: &random)
            let second = policy.delay(after: server503, attempt: 2, using: &random)
            let third = policy.delay(after: server503, attempt: 3, using: &random)
            #expect(first.map { $0 >= .zero && $0 <= .milliseconds(100) } == true)
            #expect(second.map { $0 >= .zero && $0 <= .milliseconds(200) } == true)
            #expect(third.map { $0 >= .zero && $0 <= .milliseconds(250) } == true, "capped by maximumDelay")
        }
    }

    @Test func attemptsAreBounded() {
        var random = SystemRandomNumberGenerator()
        #expect(policy.delay(after: server503, attempt: 4, using: &random) == nil)
        #expect(RetryPolicy.never.delay(after: server503, attempt: 1, using: &random) == nil)
    }

    @Test func onlyTransientFailuresAreRetried() {
        var random = SystemRandomNumberGenerator()
        let permanent: [any Error] = [
            DataLoadingError.httpStatus(404, url: "", retryAfter: nil),
            DataLoadingError.httpStatus(403, url: "", retryAfter: nil),
            DataLoadingError.tooLarge(limit: 1, declared: 2),
            DataLoadingError.invalidURL("x"),
            CancellationError(),
        ]
        for error in permanent { #expect(policy.delay(after: error, attempt: 1, using: &random) == nil) }
        let transient: [any Error] = [
            DataLoadingError.network("reset"),
            DataLoadingError.timedOut(.total),
            DataLoadingError.httpStatus(502, url: "", retryAfter: nil),
            DataLoadingError.httpStatus(429, url: "", retryAfter: nil),
        ]
        for error in transient { #expect(policy.delay(after: error, attempt: 1, using: &random) != nil) }
    }

    @Test func retryAfterIsHonouredUpToItsCap() {
        var random = SystemRandomNumberGenerator()
        let soon = DataLoadingError.httpStatus(429, url: "", retryAfter: 2)
        let late = DataLoadingError.httpStatus(429, url: "", retryAfter: 3_600)
        #expect(policy.delay(after: soon, attempt: 1, using: &random) == .seconds(2))
        #expect(policy.delay(after: late, attempt: 1, using: &random) == nil, "an hour's wait is a failure, not a stall")
    }
}

import Foundation
import Testing
@testable import LoupeLoading

@Suite struct HTTPFreshnessTests {
    let now = Date(timeIntervalSince1970: 1_700_000_000)

    func response(_ headers: [String: String]) -> DataResponse {
        DataResponse(data: Data(), statusCode: 200, headers: Dictionary(uniqueKeysWithValues: headers.map { ($0.key.lowercased(), $0.value) }),
                     url: URL(fileURLWithPath: "/"))
    }

    @Test func maxAgeMinusAgeSetsTheExpiry() {
        let freshness = HTTPFreshness.of(response(["Cache-Control": "public, max-age=600", "Age": "100"]), receivedAt: now, defaultTimeToLive: 7)
        #expect(freshness == HTTPFreshness(isStorable: true, expiresAt: now.addingTimeInterval(500)))
    }

    @Test func noStoreForbidsStoringAndNoCacheForcesRevalidation() {
        #expect(!HTTPFreshness.of(response(["Cache-Control": "no-store, max-age=600"]), receivedAt: now, defaultTimeToLive: 7).isStorable)
        #expect(HTTPFreshness.of(response(["Cache-Control": "No-Cache"]), receivedAt: now, defaultTimeToLive: 7)
            == HTTPFreshness(isStorable: true, expiresAt: now))
    }

    @Test func expiresIsMeasuredOnTheServersClock() {
        // The server's clock is two hours behind ours; Expires is 10 minutes after its Date.
        let headers = ["Date": "Tue, 14 Nov 2023 20:13:20 GMT", "Expires": "Tue, 14 Nov 2023 20:23:20 GMT"]
        #expect(HTTPFreshness.of(response(headers), receivedAt: now, defaultTimeToLive: nil).expiresAt == now.addingTimeInterval(600))
    }

    @Test func invalidExpiresMeansAlreadyExpired() {
        #expect(HTTPFreshness.of(response(["Expires": "0"]), receivedAt: now, defaultTimeToLive: 60).expiresAt == now)
    }

    @Test func withoutExplicitExpiryTheDefaultApplies() {
        #expect(HTTPFreshness.of(response([:]), receivedAt: now, defaultTimeToLive: 60).expiresAt == now.addingTimeInterval(60))
        #expect(HTTPFreshness.of(response([:]), receivedAt: now, defaultTimeToLive: nil).expiresAt == nil)
    }

    @Test func theFirstOfDuplicateDirectivesWins() {
        let directives = HTTPFreshness.cacheControl("max-age=10, max-age=99999, private, community=\"UCI\"")
        #expect(directives["max-age"] == .some("10"))
        #expect(directives["private"] == .some(nil))
        #expect(directives["community"] == .some("UCI"))
    }

    @Test(arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_777.0),
        ("Sunday, 06-Nov-94 08:49:37 GMT", 784_111_777.0),
        ("Sun Nov  6 08:49:37 1994", 784_111_777.0),
        ("Thu, 01 Jan 1970 00:00:00 GMT", 0.0),
        ("Tue, 29 Feb 2028 23:59:60 GMT", 1_835_481_600.0),
    ])
    func httpDatesInAllThreeFormats(text: String, epoch: Double) {
        #expect(HTTPDate.parse(text) == Date(timeIntervalSince1970: epoch))
    }

    @Test(arguments: ["", "0", "-1", "yesterday", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT", "Sun, 06 Nov 1994 25:00:00 GMT"])
    func nonDatesAreRejected(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }

    @Test func retryAfterTakesSecondsOrADate() {
        #expect(RetryAfter.seconds("120", now: now) == 120)
        #expect(RetryAfter.seconds("Tue, 14 Nov 2023 22:14:20 GMT", now: now) == 60)
        #expect(RetryAfter.seconds("soon", now: now) == nil)
        #expect(RetryAfter.seconds("-5", now: now) == nil)
    }
}

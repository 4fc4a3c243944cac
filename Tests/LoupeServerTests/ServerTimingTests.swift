import Foundation
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The `Server-Timing` header of image responses, through the service's routes: the stages of a result made
/// for the request, and a result cache hit said as such.
@Suite struct ServerTimingTests {
    /// The header's metrics by name: `dur` in milliseconds, or the `desc` text.
    static func metrics(_ header: String) -> [(name: String, value: String)] {
        header.split(separator: ",").map { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            let value = parts.dropFirst().first.map { String($0.split(separator: "=", maxSplits: 1).last ?? "") } ?? ""
            return (parts.first ?? "", value)
        }
    }

    @Test func madeResultNamesItsStagesAndAHitSaysSo() async throws {
        let photo = try TestImage.jpeg(width: 400, height: 300, seed: 5)
        try await OriginServer.run(handler: { _ in .ok(photo, delay: .milliseconds(30)) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let path = insecurePath("rs:fill:120:90/bl:2", origin.url("/t.jpg").absoluteString, extension: "png")
                let made = try await server.request(path)
                #expect(made.status == 200)
                let stages = Self.metrics(try #require(made.header("Server-Timing")))
                #expect(stages.map(\.name) == ["queue", "download", "decode", "process", "encode", "cache", "total"])
                let durations = Dictionary(stages.filter { $0.name != "cache" }.map { ($0.name, Double($0.value) ?? -1) }) { a, _ in a }
                #expect(durations.values.allSatisfy { $0 >= 0 })
                // The origin waits 30 ms before answering: the download took at least that.
                #expect(durations["download", default: 0] >= 30)
                #expect(durations["total", default: 0] >= durations["download", default: 0])
                #expect(stages.first { $0.name == "cache" }?.value == "miss")

                let hit = try await server.request(path)
                #expect(hit.body == made.body)
                let cached = Self.metrics(try #require(hit.header("Server-Timing")))
                #expect(cached.map(\.name) == ["cache", "total"])
                #expect(cached.first?.value == "hit")
            }
        }
    }

    @Test func millisecondsKeepThreeDecimalsAtMost() {
        #expect(ServerTiming.milliseconds(.milliseconds(12)) == "12")
        #expect(ServerTiming.milliseconds(.microseconds(1_250)) == "1.25")
        #expect(ServerTiming.milliseconds(.nanoseconds(999)) == "0")
        #expect(ServerTiming.milliseconds(.microseconds(3_007)) == "3.007")
        #expect(ServerTiming.milliseconds(.seconds(2)) == "2000")
    }
}

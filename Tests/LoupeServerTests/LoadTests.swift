import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// Coalescing, the queue bound and the result cache, against a real server.
@Suite struct LoadTests {
    /// 100 concurrent requests for one URL: one download at the origin, 100 images.
    @Test func identicalRequestsInFlightRunOnce() async throws {
        let photo = try TestImage.jpeg(width: 300, height: 200, seed: 10)
        try await OriginServer.run(handler: { _ in .ok(photo, delay: .milliseconds(300)) }) { origin in
            var settings = testSettings()
            settings.queueLength = 200
            try await RunningServer.with(settings) { server in
                let path = insecurePath("rs:fit:64:64", origin.url("/same.jpg").absoluteString, extension: "jpg")
                let answers = try await withThrowingTaskGroup(of: RunningServer.Answer.self) { group in
                    for _ in 0..<100 { group.addTask { try await server.request(path) } }
                    var answers: [RunningServer.Answer] = []
                    for try await answer in group { answers.append(answer) }
                    return answers
                }
                #expect(answers.count == 100)
                #expect(answers.allSatisfy { $0.status == 200 })
                #expect(Set(answers.map(\.body)).count == 1)
                #expect(origin.requestCount(for: "/same.jpg") == 1)
                let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
                #expect(metrics.contains("loupe_pipeline_decodes 1"))
            }
        }
    }

    /// One worker and no queue: while one request works, a second distinct one is refused at
    /// once with 429 and Retry-After.
    @Test func fullQueueAnswers429() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 11)
        let gate = Gate()
        try await OriginServer.run(handler: { request in
            if request.path == "/slow.jpg" { await gate.waitIgnoringCancellation() }
            return .ok(photo)
        }) { origin in
            var settings = testSettings()
            settings.workers = 1
            settings.queueLength = 0
            try await RunningServer.with(settings) { server in
                let slow = Task { try await server.request(insecurePath("w:10", origin.url("/slow.jpg").absoluteString)) }
                #expect(await eventually { origin.requestCount(for: "/slow.jpg") == 1 })
                let start = ContinuousClock.now
                let refused = try await server.request(insecurePath("w:10", origin.url("/other.jpg").absoluteString))
                #expect(refused.status == 429)
                #expect(refused.header("Retry-After") == "1")
                #expect(refused.json["kind"] as? String == "queueFull")
                #expect(start.duration(to: .now) < .seconds(5))
                #expect(origin.requestCount(for: "/other.jpg") == 0)
                gate.open()
                #expect(try await slow.value.status == 200)
                // Free again.
                #expect(try await server.request(insecurePath("w:10", origin.url("/other.jpg").absoluteString)).status == 200)
            }
        }
    }

    /// Results are kept on disk by options and source: a restarted server with a new signing
    /// key answers from the result cache without asking the origin.
    @Test func resultCacheSurvivesRestartAndKeyRotation() async throws {
        let photo = try TestImage.jpeg(width: 120, height: 80, seed: 12)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            let path = "/w:30/plain/\(origin.url("/kept.jpg").absoluteString)@png"
            var first: Data?
            for key in [Data([1, 1]), Data([2, 2])] {
                var settings = testSettings()
                settings.allowsUnsigned = false
                settings.cacheDirectory = folder
                settings.keys = [.init(key: key, salt: Data([3]))]
                let signature = URLSigner(pairs: settings.keys).signature(for: path) ?? ""
                try await RunningServer.with(settings) { server in
                    let answer = try await server.request("/\(signature)\(path)")
                    #expect(answer.status == 200)
                    if let first { #expect(answer.body == first) } else { first = answer.body }
                }
            }
            #expect(origin.requestCount(for: "/kept.jpg") == 1)
        }
    }
}

/// A client that goes away cancels its share of the work.
@Suite struct DisconnectTests {
    /// The only client of a slow download disconnects: the server's request ends (as 499 in
    /// its metrics), and since the download was that client's alone, it is cancelled — the
    /// server's HTTP client closes its connection to the origin mid-body, which a completed
    /// download would have kept open for reuse.
    @Test func disconnectCancelsTheDownload() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 15)
        try await OriginServer.run(handler: { request in
            if request.path == "/drip.jpg" {
                // A minute of body, a few bytes at a time.
                return OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: photo,
                                      fault: .drip(chunkBytes: max(1, photo.count / 300), interval: .milliseconds(200)))
            }
            return .ok(photo)
        }) { origin in
            var settings = testSettings()
            // Only the disconnect may end it within the test.
            settings.requestTimeout = .seconds(300)
            try await RunningServer.with(settings) { server in
                let client = Task { try await server.request(insecurePath("w:10", origin.url("/drip.jpg").absoluteString)) }
                #expect(await eventually { origin.requestCount(for: "/drip.jpg") == 1 && origin.openConnections == 1 })
                client.cancel()
                // The request ended as "client closed request" (logged as 499; nobody reads it).
                var metrics = ""
                for _ in 0..<100 {
                    metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
                    if metrics.contains(#"loupe_http_requests_total{status="499"} 1"#) { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(metrics.contains(#"loupe_http_requests_total{status="499"} 1"#))
                #expect(await eventually(timeout: .seconds(20)) { origin.openConnections == 0 })
                // Served as usual afterwards.
                let after = try await server.request(insecurePath("w:10", origin.url("/fine.jpg").absoluteString))
                #expect(after.status == 200)
            }
        }
    }
}

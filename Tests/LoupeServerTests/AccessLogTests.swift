import Foundation
import Logging
import LoupeServer
import LoupeTestSupport
import Synchronization
import Testing

/// One JSON access-log line per request (swift-log, `JSONLogHandler`).
@Suite struct AccessLogTests {
    @Test func everyRequestIsOneJSONLine() async throws {
        let lines = Mutex<[String]>([])
        let accessLog = Logger(label: "loupe.access") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        let nginx = try NginxServer.start(files: ["a.jpg": try TestImage.jpeg(width: 80, height: 60, seed: 23)])
        defer { nginx.stop() }
        let image = insecurePath("w:40", nginx.url("/a.jpg").absoluteString)
        let bad = insecurePath("nope:1", nginx.url("/a.jpg").absoluteString)
        let sizes = try await RunningServer.with(testSettings(), accessLog: accessLog) { server in
            let served = try await server.request(image)
            let refused = try await server.request(bad)
            #expect(served.status == 200)
            #expect(refused.status == 400)
            return (served.body.count, refused.body.count)
        }
        let records = try lines.withLock { $0 }.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        #expect(records.count == 2)
        guard records.count == 2 else { return }
        #expect(records.map { $0["path"] as? String } == [image, bad])
        #expect(records.map { $0["method"] as? String } == ["GET", "GET"])
        #expect(records.map { $0["status"] as? Int } == [200, 400])
        #expect(records.map { $0["bytes"] as? Int } == [sizes.0, sizes.1])
        #expect(records.allSatisfy { $0["ms"] is NSNumber && $0["logger"] as? String == "loupe.access" })
    }
}

import Foundation
import Logging
import LoupeServer
import LoupeTestSupport
import Synchronization
import Testing

/// One access-log record per request (swift-log), with what an operator needs of it. That
/// `loupe serve` writes each record as one JSON line is `JSONLogHandlerTests`' (LoupeCLITests).
@Suite struct AccessLogTests {
    @Test func everyRequestIsOneRecord() async throws {
        let records = Mutex<[(label: String, message: String, metadata: Logger.Metadata)]>([])
        let accessLog = Logger(label: "loupe.access") { label in
            RecordingLogHandler(label: label) { record in records.withLock { $0.append(record) } }
        }
        let nginx = try NginxServer.start(files: ["a.jpg": try TestImage.jpeg(width: 80, height: 60, seed: 23)])
        defer { nginx.stop() }
        let image = insecurePath("w:40", nginx.url("/a.jpg").absoluteString)
        let bad = insecurePath("nope:1", nginx.url("/a.jpg").absoluteString)
        let sizes = try await RoutedServer.with(testSettings(), accessLog: accessLog) { server in
            let served = try await server.request(image)
            let refused = try await server.request(bad)
            #expect(served.status == 200)
            #expect(refused.status == 400)
            return (served.body.count, refused.body.count)
        }
        let logged = records.withLock { $0 }
        #expect(logged.count == 2)
        guard logged.count == 2 else { return }
        #expect(logged.map { $0.metadata["path"]?.description } == [image, bad])
        #expect(logged.map { $0.metadata["method"]?.description } == ["GET", "GET"])
        #expect(logged.map { $0.metadata["status"]?.description } == ["200", "400"])
        #expect(logged.map { $0.metadata["bytes"]?.description } == [String(sizes.0), String(sizes.1)])
        #expect(logged.allSatisfy { $0.label == "loupe.access" && $0.message == "request" })
        #expect(logged.allSatisfy { Double($0.metadata["ms"]?.description ?? "") != nil })
    }
}

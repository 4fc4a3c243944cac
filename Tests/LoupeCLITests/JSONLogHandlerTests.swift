import Foundation
import Logging
@testable import LoupeCLI
import Synchronization
import Testing

/// `loupe serve`'s log and access log: one JSON object per line, numbers kept as numbers, so log
/// collectors parse it without patterns.
@Suite struct JSONLogHandlerTests {
    @Test func eachRecordIsOneJSONLine() throws {
        let lines = Mutex<[String]>([])
        let logger = Logger(label: "loupe.access") { label in
            JSONLogHandler(label: label) { line in lines.withLock { $0.append(line) } }
        }
        logger.info("request", metadata: ["path": "/a\nb", "status": .stringConvertible(200), "ms": .stringConvertible(1.5)])
        logger.warning("second line")
        let written = lines.withLock { $0 }
        #expect(written.count == 2)
        let records = try written.map { line in
            #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        guard records.count == 2 else { return }
        #expect(records[0]["path"] as? String == "/a\nb")
        #expect(records[0]["status"] as? Int == 200)
        #expect(records[0]["ms"] as? Double == 1.5)
        #expect(records[0]["message"] as? String == "request")
        #expect(records.map { $0["logger"] as? String } == ["loupe.access", "loupe.access"])
        #expect(records.map { $0["level"] as? String } == ["info", "warning"])
        #expect(records.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
    }
}

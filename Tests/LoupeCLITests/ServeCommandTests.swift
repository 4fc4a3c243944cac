import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `loupe serve` as a real child process: start-up errors and graceful shutdown on SIGTERM.
@Suite struct ServeCommandTests {
    @Test func invalidSettingStopsStartUpWithOneLineAndStatus2() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let run = try await LoupeRun.run(["serve", "--port", "http"], home: home, timeout: .seconds(30))
        #expect(run.status == 2)
        #expect(run.standardError == "loupe serve: --port 'http' is not a whole number in 0...65535\n")
        #expect(run.standardOutput.isEmpty)
    }

    /// SIGTERM while a slow request is in flight: the request still gets its image, new
    /// connections are refused, and the process exits 0.
    @Test func sigtermDrainsRequestsInFlightThenExits0() async throws {
        let photo = try TestImage.jpeg(width: 100, height: 100, seed: 13)
        try await OriginServer.run(handler: { _ in .ok(photo, delay: .milliseconds(1500)) }) { origin in
            let child = try ServerProcess(arguments: [
                "serve", "--port", "0", "--allow-unsigned", "--permit-addresses", "127.0.0.1", "--quiet",
            ])
            defer { child.kill() }
            let port = try await child.port()
            let slow = Task {
                try await httpGet(port: port, path: "/insecure/w:10/plain/\(origin.url("/slow.jpg").absoluteString)")
            }
            #expect(await eventually { origin.requestCount(for: "/slow.jpg") == 1 })
            child.signal(SIGTERM)
            let answer = try await slow.value
            #expect(answer.status == 200)
            #expect(try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).metadata.width == 10)
            let status = try await child.waitForExit(timeout: .seconds(30))
            #expect(status == 0)
            await #expect(throws: (any Error).self) { try await httpGet(port: port, path: "/health") }
        }
    }
}

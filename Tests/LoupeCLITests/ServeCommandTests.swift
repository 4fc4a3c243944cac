import Foundation
@testable import LoupeCLI
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

    /// What `--help` prints is the settings' declarations; a boolean flag with a spelling that
    /// is not imgproxy's, and an unknown flag, stop start-up with one line naming them.
    @Test func helpAndBadFlagsOfTheRealCommand() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let help = try await LoupeRun.run(["serve", "--help"], home: home, timeout: .seconds(30))
        #expect(help.status == 0)
        let flat = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(flat.contains(SettingArguments.help.split(whereSeparator: \.isWhitespace).joined(separator: " ")))
        #expect(flat.contains("--quiet No access log on standard error."))
        let on = try await LoupeRun.run(["serve", "--allow-private-networks=on"], home: home, timeout: .seconds(30))
        #expect(on.status == 2)
        #expect(on.standardError == "loupe serve: --allow-private-networks 'on' is not a boolean (1, t, T, TRUE, true, True, 0, f, F, FALSE, false, False)\n")
        let unknown = try await LoupeRun.run(["serve", "--allow-everything"], home: home, timeout: .seconds(30))
        #expect(unknown.status == 2)
        #expect(unknown.standardError == "loupe serve: unknown setting --allow-everything\n")
    }

    /// SIGTERM while a slow request is in flight: the request still gets its image, new
    /// connections are refused, and the process exits 0.
    @Test func sigtermDrainsRequestsInFlightThenExits0() async throws {
        let photo = try TestImage.jpeg(width: 100, height: 100, seed: 13)
        try await OriginServer.run(handler: { _ in .ok(photo, delay: .milliseconds(1500)) }) { origin in
            let (child, port, slow) = try await serverWithSlowRequest(origin: origin)
            defer { child.kill() }
            child.signal(SIGTERM)
            let answer = try await slow.value
            #expect(answer.status == 200)
            #expect(try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).metadata.width == 10)
            let status = try await child.waitForExit(timeout: .seconds(30))
            #expect(status == 0)
            await #expect(throws: (any Error).self) { try await httpGet(port: port, path: "/health") }
        }
    }

    /// The drain phase a load balancer needs: SIGTERM turns `/health` to 503 at once while the
    /// server still answers for `--drain-delay` (a new request is served, one in flight
    /// completes with its image), then it stops accepting and exits 0.
    @Test func sigtermTurnsHealthTo503WhileStillServingDuringTheDrainDelay() async throws {
        let photo = try TestImage.jpeg(width: 100, height: 100, seed: 14)
        try await OriginServer.run(handler: { request in
            .ok(photo, delay: request.path == "/slow.jpg" ? .milliseconds(1500) : .zero)
        }) { origin in
            let (child, port, slow) = try await serverWithSlowRequest(origin: origin, arguments: ["--drain-delay", "5"])
            defer { child.kill() }
            #expect(try await httpGet(port: port, path: "/health").status == 200)
            let signalled = ContinuousClock.now
            child.signal(SIGTERM)
            // At once: the first health check after the signal is handled.
            #expect(try await healthOnceSignalled(child, port: port) == 503)
            // Still answering during the delay: a request that arrives now gets its image.
            let late = try await httpGet(port: port, path: "/insecure/w:12/plain/\(origin.url("/late.jpg").absoluteString)")
            #expect(late.status == 200)
            #expect(try ImageDecoder().decode(late.body, options: DecodingOptions(firstFrameOnly: true)).metadata.width == 12)
            let answer = try await slow.value
            #expect(answer.status == 200)
            #expect(try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).metadata.width == 10)
            let status = try await child.waitForExit(timeout: .seconds(60))
            #expect(status == 0)
            // It stopped listening only after the delay.
            #expect(signalled.duration(to: .now) >= .seconds(5))
            await #expect(throws: (any Error).self) { try await httpGet(port: port, path: "/health") }
        }
    }

    /// An operator who signals twice does not wait for the grace period: the second SIGTERM
    /// during the drain stops the server at once, cuts the request in flight (its source is
    /// still delaying) and exits 1 with one line saying why.
    @Test func aSecondSigtermDuringTheDrainStopsAtOnceWithStatus1() async throws {
        let photo = try TestImage.jpeg(width: 100, height: 100, seed: 15)
        try await OriginServer.run(handler: { _ in .ok(photo, delay: .seconds(20)) }) { origin in
            let (child, port, slow) = try await serverWithSlowRequest(origin: origin, arguments: ["--drain-delay", "30"])
            defer { child.kill() }
            child.signal(SIGTERM)
            // The first signal is handled once /health turns 503.
            #expect(try await healthOnceSignalled(child, port: port) == 503)
            let signalled = ContinuousClock.now
            child.signal(SIGTERM)
            // Well before the 30 s drain delay and the source's 20 s: only the second signal ends it.
            let status = try await child.waitForExit(timeout: .seconds(15))
            #expect(status == 1)
            #expect(signalled.duration(to: .now) < .seconds(15))
            // Cut: the connection closed (an error) or an error status, never the image.
            #expect((try? await slow.value)?.status != 200)
        }
    }

    /// `/health`'s status once the server has logged that the signal started its drain.
    private func healthOnceSignalled(_ child: ServeProcess, port: Int) async throws -> Int {
        try await child.waitForLog("draining: /health answers 503")
        return try await httpGet(port: port, path: "/health").status
    }

    /// `loupe serve` as a child process (unsigned URLs, `origin` let through the private-network
    /// guard, plus `arguments`), its port, and a request for a 10 px thumbnail of the origin's
    /// `/slow.jpg` in flight: returned once the origin has received the download.
    private func serverWithSlowRequest(origin: OriginServer, arguments: [String] = []) async throws
        -> (child: ServeProcess, port: Int, slow: Task<(status: Int, body: Data), any Error>) {
        let child = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--permit-addresses", "127.0.0.1", "--quiet",
        ] + arguments)
        let port: Int
        do {
            port = try await child.port()
        } catch {
            child.kill()
            throw error
        }
        let slow = Task {
            try await httpGet(port: port, path: "/insecure/w:10/plain/\(origin.url("/slow.jpg").absoluteString)")
        }
        #expect(await eventually { origin.requestCount(for: "/slow.jpg") == 1 })
        return (child, port, slow)
    }
}

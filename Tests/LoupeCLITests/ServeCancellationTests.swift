import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoupeCodecs
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `loupe serve` as a real child process under the most expensive work its limits allow (a blur
/// of σ 100 over an enlarged result): the deadline's 504 comes at the deadline and frees the
/// worker, `/health` keeps answering, and SIGTERM ends the process within its drain's bound.
@Suite(.serialized) struct ServeCancellationTests {
    /// Enlarged to 2000 px and blurred at imgproxy's largest σ: minutes of work in any build.
    static let bomb = "/insecure/rs:fit:2000:2000:1/bl:100/plain/local:///ok.jpg@jpg"

    /// The served folder (a 640×480 JPEG, `ok.jpg`) and a server over it with `arguments`.
    private func server(_ arguments: [String]) async throws -> (child: ServeProcess, port: Int, folder: TemporaryFolder) {
        let folder = try TemporaryFolder.created()
        try TestImage.jpeg(width: 640, height: 480, seed: 21).write(to: URL(fileURLWithPath: folder.path("ok.jpg")))
        let child = try ServeProcess(["--port", "0", "--allow-unsigned", "--quiet", "--local-root", folder.url.path]
                                      + arguments)
        do {
            return (child, try await child.port(), folder)
        } catch {
            child.kill()
            throw error
        }
    }

    /// The deadline passes mid-blur: 504 at the deadline, and the only worker is free soon after
    /// it — a cheap request sent at the 504 takes about as long as alone, not the blur's minutes.
    /// (The bounds tell "at the deadline" from "after the work" with room for a debug build
    /// beside other tests; how close, in release, is measured apart.)
    @Test func theDeadline504ComesAtTheDeadlineAndFreesTheWorker() async throws {
        let (child, port, _) = try await server(["--workers", "1", "--request-timeout", "2"])
        defer { child.kill() }
        let alone = try await timedGet(port: port, path: "/insecure/w:11/plain/local:///ok.jpg", timeout: 30)
        #expect(alone.status == 200)
        let bomb = try await timedGet(port: port, path: Self.bomb, timeout: 30)
        #expect(bomb.status == 504)
        #expect(bomb.seconds >= 1.9 && bomb.seconds < 3, "504 after \(bomb.seconds) s for a 2 s deadline")
        let next = try await timedGet(port: port, path: "/insecure/w:12/plain/local:///ok.jpg", timeout: 30)
        #expect(next.status == 200)
        #expect(next.seconds <= alone.seconds + 1, "the next request took \(next.seconds) s, alone \(alone.seconds) s")
    }

    /// Two of the most expensive requests at once on every worker: `/health` and `/metrics`
    /// each answer within 1 s throughout.
    @Test func healthAndMetricsAnswerWhileEveryWorkerBlurs() async throws {
        let (child, port, _) = try await server(["--workers", "2", "--request-timeout", "4"])
        defer { child.kill() }
        let bombs = (0..<2).map { index in
            Task { try await timedGet(port: port, path: Self.bomb.replacingOccurrences(of: "bl:100", with: "bl:\(100 - index)"), timeout: 30) }
        }
        var slowest = 0.0
        // Ten rounds of both routes while the blurs run (they end at their 4 s deadline).
        for _ in 0..<10 {
            for path in ["/health", "/metrics"] {
                let answer = try await timedGet(port: port, path: path, timeout: 3)
                #expect(answer.status == 200, "\(path) answered \(answer.status)")
                slowest = max(slowest, answer.seconds)
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(slowest < 1, "slowest /health or /metrics: \(slowest) s")
        for bomb in bombs { #expect(try await bomb.value.status == 504) }
    }

    /// SIGTERM mid-blur: `/health` turns 503 at once and the process exits 0 within its grace
    /// period (drain delay 0 + the 2 s request timeout + 1 s), the blur cut at its deadline.
    @Test func sigtermDuringABlurExitsWithinTheGracePeriod() async throws {
        let (child, port, _) = try await server(["--workers", "1", "--request-timeout", "2"])
        defer { child.kill() }
        let bomb = Task { try await timedGet(port: port, path: Self.bomb, timeout: 30) }
        // In flight once /metrics counts it (the metrics request itself is the other one).
        var inFlight = false
        for _ in 0..<100 where !inFlight {
            let metrics = try await timedGet(port: port, path: "/metrics", timeout: 3)
            inFlight = String(decoding: metrics.body, as: UTF8.self).split(separator: "\n").contains { line in
                line.hasPrefix("loupe_requests_in_flight ") && (line.split(separator: " ").last.flatMap { Double($0) } ?? 0) >= 2
            }
            if !inFlight { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(inFlight)
        let signalled = ContinuousClock.now
        child.signal(SIGTERM)
        let status = try await child.waitForExit(timeout: .seconds(10))
        let elapsed = signalled.duration(to: .now)
        #expect(status == 0)
        #expect(elapsed < .seconds(3), "exited \(elapsed) after SIGTERM")
        #expect((try? await bomb.value)?.status != 200)
    }

    /// A GET with its own timeout: status, body, and seconds to the answer.
    private func timedGet(port: Int, path: String, timeout: TimeInterval) async throws -> (status: Int, body: Data, seconds: Double) {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw FixtureError("bad path \(path)") }
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        let start = ContinuousClock.now
        let (data, response) = try await URLSession.shared.data(for: request)
        let elapsed = start.duration(to: .now)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data, seconds)
    }
}

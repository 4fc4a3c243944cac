import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeTestSupport
import Testing

/// `loupe serve` as a real child process loading its sources: a download has one deadline,
/// retries included, and a redirect to a refused address is answered alike whether anything
/// listens there or not, without connecting to it.
@Suite struct ServeSourceLoadingTests {
    /// `loupe serve --download-timeout 3` with the origin (127.0.0.1) let through the guard.
    func withServer(_ body: (Int) async throws -> Void) async throws {
        let child = try ServeProcess([
            "--port", "0", "--allow-unsigned", "--permit-addresses", "127.0.0.1", "--quiet",
            "--download-timeout", "3", "--request-timeout", "30",
        ])
        defer { child.kill() }
        try await body(try await child.port())
    }

    func message(_ body: Data) -> String {
        ((try? JSONSerialization.jsonObject(with: body)) as? [String: Any])?["message"] as? String ?? ""
    }

    /// A source sending one byte a second, and one that never sends its headers: 504 within
    /// 3.5 s with `--download-timeout 3` (not once per retry), the message naming the stage.
    @Test func aStallingSourceAnswers504WithinTheDownloadTimeout() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 21)
        try await OriginServer.run(handler: { request in
            request.path == "/drip.jpg"
                ? OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: photo,
                                 fault: .drip(chunkBytes: 1, interval: .seconds(1)))
                : OriginResponse.ok(photo, delay: .seconds(60))
        }) { origin in
            try await withServer { port in
                for (path, stage) in [("/drip.jpg", "reading the body"), ("/silent.jpg", "waiting for the response headers")] {
                    let start = ContinuousClock.now
                    let answer = try await httpGet(port: port, path: "/insecure/w:10/plain/\(origin.url(path).absoluteString)")
                    let elapsed = ContinuousClock.now - start
                    #expect(answer.status == 504, "\(path)")
                    #expect(elapsed < .milliseconds(3_500), "\(path): \(elapsed)")
                    #expect(message(answer.body).contains(stage), "\(path): \(message(answer.body))")
                    #expect(origin.requestCount(for: path) == 1, "\(path): no retry past the deadline")
                }
            }
        }
    }

    /// A redirect to 127.0.0.2 (refused) after one, two and three hops: 403 with the same
    /// message for an open and a closed port, and no connection reached the open one.
    @Test func refusedRedirectHopsAnswerAlikeWithoutConnecting() async throws {
        let hidden = try QuietListener(host: "127.0.0.2")
        let closedPort = try freePort(on: "127.0.0.2")
        let targets = TargetList(open: "http://127.0.0.2:\(hidden.port)/secret.jpg", closed: "http://127.0.0.2:\(closedPort)/secret.jpg")
        try await OriginServer.run(handler: { request in
            // /open/n and /closed/n redirect n times, the last time to the refused address.
            let parts = request.path.split(separator: "/")
            guard parts.count == 2, let n = Int(parts[1]), n >= 1 else { return .status(404) }
            let next = n == 1 ? (parts[0] == "open" ? targets.open : targets.closed) : "/\(parts[0])/\(n - 1)"
            return .status(302, headers: [("Location", next)])
        }) { origin in
            try await withServer { port in
                for hops in 1...3 {
                    var answers: [(status: Int, body: String)] = []
                    for kind in ["open", "closed"] {
                        let answer = try await httpGet(port: port, path: "/insecure/w:10/plain/\(origin.url("/\(kind)/\(hops)").absoluteString)")
                        answers.append((answer.status, String(decoding: answer.body, as: UTF8.self)))
                    }
                    #expect(answers.map(\.status) == [403, 403], "\(hops) hops")
                    #expect(answers[0].body == answers[1].body, "\(hops) hops: \(answers)")
                    #expect(message(Data(answers[0].body.utf8)).contains("127.0.0.2"), "\(answers[0].body)")
                    #expect(hidden.takePendingConnections() == 0, "\(hops) hops: a connection reached 127.0.0.2")
                }
            }
        }
    }

    struct TargetList: Sendable {
        var open: String
        var closed: String
    }
}

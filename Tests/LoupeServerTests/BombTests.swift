import AsyncHTTPClient
import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeServer
import LoupeTestSupport
import NIOCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The URLs that ask for the most work the limits allow, sent to `loupe serve` as a child
/// process (its defaults, with a 12-megapixel source limit so the largest source is quick to
/// make): each is refused with 422 at once, naming the option that makes it too costly, or
/// answered with a correct result; meanwhile `/health` answers within a second, an ordinary
/// request is served within two, and the process's peak memory stays under 512 MB.
@Suite struct BombTests {
    /// One URL that makes work grow.
    struct Bomb: Sendable, CustomStringConvertible {
        let name: String
        let path: String
        /// The options a refusal may name.
        let options: Set<String>
        /// The result's size when it is served (nil: any size).
        let size: (width: Int, height: Int)?
        let format: ImageFormat

        var description: String { name }
    }

    static let bombs: [Bomb] = [
        Bomb(name: "enlarge to the side limit", path: "rs:fit:8192:8192:1/plain/local:///small.jpg@jpg", options: ["enlarge"],
             size: (8192, 6144), format: .jpeg),
        Bomb(name: "blur 100", path: "rs:fit:8192:8192:1/bl:100/plain/local:///small.jpg@jpg", options: ["blur"], size: (8192, 6144), format: .jpeg),
        Bomb(name: "blur 99", path: "rs:fit:8192:8192:1/bl:99/plain/local:///small.jpg@jpg", options: ["blur"], size: (8192, 6144), format: .jpeg),
        Bomb(name: "sharpen", path: "rs:fit:8192:8192:1/sh:100/plain/local:///small.jpg@jpg", options: ["sharpen"], size: (8192, 6144),
             format: .jpeg),
        Bomb(name: "pixelate", path: "rs:fit:8192:8192:1/pix:100/plain/local:///small.jpg@jpg", options: ["pixelate", "enlarge"],
             size: (8192, 6144), format: .jpeg),
        Bomb(name: "trim on the largest source", path: "t:10/plain/local:///large.jpg@jpg", options: ["trim", "format", "source"], size: nil,
             format: .jpeg),
        Bomb(name: "watermark scale", path: "rs:fit:4000:4000:1/wm:1:re:0:0:1/plain/local:///small.jpg@jpg", options: ["watermark", "enlarge", "format"],
             size: (4000, 3000), format: .jpeg),
        Bomb(name: "extend", path: "rs:fit:8192:8192/ex:1/plain/local:///small.jpg@jpg", options: ["extend"], size: (8192, 8192), format: .jpeg),
        Bomb(name: "padding", path: "pd:4000/plain/local:///small.jpg@jpg", options: ["padding"], size: (8640, 8480), format: .jpeg),
        Bomb(name: "dpr", path: "rs:fit:2000:2000:1/dpr:4/plain/local:///small.jpg@jpg", options: ["dpr"], size: (8000, 6000), format: .jpeg),
        Bomb(name: "zoom", path: "z:12/el:1/plain/local:///small.jpg@jpg", options: ["zoom"], size: (7680, 5760), format: .jpeg),
        Bomb(name: "animation frames × canvas", path: "rs:fit:2000:2000:1/plain/local:///animation.gif@gif",
             options: ["enlarge", "max_animation_frames", "format"], size: (2000, 1500), format: .gif),
        Bomb(name: "max_bytes on a large result", path: "rs:fit:3000:3000:1/mb:2000/plain/local:///small.jpg@jpg", options: ["max_bytes"],
             size: (3000, 2250), format: .jpeg),
        Bomb(name: "PNG of the largest result", path: "rs:fit:8192:8192:1/plain/local:///small.jpg@png", options: ["enlarge", "format"],
             size: (8192, 6144), format: .png),
        Bomb(name: "PNG of the largest source", path: "plain/local:///large.jpg@png", options: ["format"], size: (4000, 2990), format: .png),
        Bomb(name: "AVIF of the largest source", path: "plain/local:///large.jpg@avif", options: ["format"], size: (4000, 2990), format: .avif),
        // thumbor's dialect is weighed the same way, from the source's header.
        Bomb(name: "thumbor: enlarge and blur", path: "/unsafe/8000x8000/filters:blur(150)/local:///small.jpg", options: ["blur"], size: nil,
             format: .jpeg),
        Bomb(name: "AVIF of a large result", path: "rs:fit:2000:2000/plain/local:///large.jpg@avif", options: ["format"], size: (2000, 1495),
             format: .avif),
    ]

    /// What one request got, and how long it took.
    struct Answer: Sendable {
        let status: Int
        let body: Data
        let duration: Duration

        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    }

    /// The cost limit the server runs with: the default in an optimised build; in a debug build,
    /// whose Swift processing runs tens of times slower (more on a loaded machine), about the
    /// same time's worth.
    static var costLimit: String {
        #if DEBUG
        "100"
        #else
        "\(ServerSettings().maximumRequestCost)"
        #endif
    }

    @Test func everyBombIsRefusedAtOnceOrServedWhileTheServerStaysResponsive() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try Self.writeSources(into: folder)
        let child = try ServeProcess([
            "--port", "0", "--quiet", "--allow-unsigned", "--local-root", folder.url.path, "--max-source-pixels", "12",
            "--max-request-cost", Self.costLimit, "--watermark-path", folder.path("mark.png"), "--thumbor-allow-unsafe",
        ])
        defer { child.kill() }
        let port = try await child.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            // The first request's lazy start-up (codec libraries, the pipeline's stages) is not
            // a bomb's cost: one ordinary request first.
            #expect(try await Self.get("/insecure/rs:fit:10:10/plain/local:///small.jpg@jpg", port: port, client: client, timeout: .seconds(60)).status == 200)
            for (index, bomb) in Self.bombs.enumerated() {
                try await check(bomb, index: index, port: port, client: client)
            }
            // Two of the costliest requests allowed at once, on every core.
            let costly = ["t:10/cb:a/plain/local:///large.jpg@webp", "t:10/cb:b/plain/local:///large.jpg@webp"]
            let (answers, health) = try await whileRunning(costly, port: port, client: client)
            #expect(answers.allSatisfy { $0.status == 200 || ($0.status == 422 && $0.json["kind"] as? String == "tooExpensive") },
                    "\(answers.map(\.status))")
            #expect(health.allSatisfy { $0 < .seconds(1) }, "health took \(health.max() ?? .zero) while two costly requests ran")
            let peak = try Self.peakResidentBytes(of: child.child.pid)
            #expect(peak < 512 << 20, "peak RSS \(peak >> 20) MB")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// SVG documents declaring 100,000×100,000 pixels (by their size, or by a viewBox alone),
    /// asked as SVG, as PNG, and drawn into a 10-pixel box: each refused with 422 from the
    /// declaration within a second, and the process's peak memory does not grow (drawn, the
    /// document would take 40 GB).
    @Test func svgBombsAreRefusedFromTheirDeclaredSize() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let shape = #"<rect width="10" height="10" fill="red"/></svg>"#
        try Data((#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50">"# + shape).utf8).write(to: URL(fileURLWithPath: folder.path("small.svg")))
        try Data((#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000">"# + shape).utf8).write(to: URL(fileURLWithPath: folder.path("size.svg")))
        try Data((#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100000 100000">"# + shape).utf8).write(to: URL(fileURLWithPath: folder.path("box.svg")))
        let child = try ServeProcess(["--port", "0", "--quiet", "--allow-unsigned", "--local-root", folder.url.path])
        defer { child.kill() }
        let port = try await child.port()
        let client = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            // librsvg's lazy load and the pipeline's start-up are not the bombs' cost.
            let ordinary = try await Self.get("/insecure/rs:fit:50:50/plain/local:///small.svg@png", port: port, client: client, timeout: .seconds(60))
            #expect(ordinary.status == 200)
            let before = try Self.peakResidentBytes(of: child.child.pid)
            for name in ["size.svg", "box.svg"] {
                for options in ["", "rs:fit:10:10/", "f:png/", "rs:fit:10:10/f:webp/", "f:svg/"] {
                    let answer = try await Self.get("/insecure/\(options)plain/local:///\(name)", port: port, client: client, timeout: .seconds(60))
                    #expect(answer.status == 422 && answer.json["kind"] as? String == "tooManyPixels", "\(options)\(name): \(answer.json)")
                    #expect(answer.duration < .seconds(1), "\(options)\(name): refused after \(answer.duration)")
                }
            }
            let grown = try Self.peakResidentBytes(of: child.child.pid) - before
            #expect(grown < 64 << 20, "peak RSS grew by \(grown >> 20) MB")
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// Sends `bomb` with an ordinary request beside it and checks the answer, `/health`'s and
    /// the ordinary request's.
    private func check(_ bomb: Bomb, index: Int, port: Int, client: HTTPClient) async throws {
        let ordinary = "rs:fit:300:300/cb:\(index)/plain/local:///small.jpg@jpg"
        let (answers, health) = try await whileRunning([bomb.path, ordinary], port: port, client: client)
        let answer = answers[0]
        if answer.status == 422 {
            let message = answer.json["message"] as? String ?? ""
            // Refused by its cost, naming the option, or by the result's side limit (imgproxy's
            // max_result_dimension), naming the limit: both before any pixel of it is made.
            let byCost = answer.json["kind"] as? String == "tooExpensive" && bomb.options.contains { message.contains("'\($0)'") }
            let bySize = answer.json["kind"] as? String == "processingFailed" && message.contains("8192")
            #expect(byCost || bySize, "\(bomb): \(message)")
            // "At once": no decode of a large result, no waiting for a worker. The bound leaves
            // room for the other tests running beside this one on two cores.
            #expect(answer.duration < .seconds(1), "\(bomb): refused after \(answer.duration)")
        } else {
            #expect(answer.status == 200, "\(bomb): \(answer.status) \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
            if answer.status == 200 {
                let metadata = try ImageDecoder().metadata(of: answer.body)
                #expect(metadata.format == bomb.format, "\(bomb)")
                if let size = bomb.size {
                    #expect(metadata.width == size.width && metadata.height == size.height, "\(bomb): \(metadata.width)x\(metadata.height)")
                }
            }
        }
        #expect(answers[1].status == 200, "the ordinary request beside \(bomb)")
        #expect(answers[1].duration < .seconds(2), "the ordinary request beside \(bomb) took \(answers[1].duration)")
        #expect(health.allSatisfy { $0 < .seconds(1) }, "health took \(health.max() ?? .zero) beside \(bomb)")
    }

    /// Sends every path at once and asks `/health` until all are answered (at most two
    /// minutes): the answers in order, and how long each health check took (a failed or
    /// unanswered one as a minute).
    private func whileRunning(_ paths: [String], port: Int, client: HTTPClient) async throws -> ([Answer], [Duration]) {
        let done = Locked(false)
        let requests = Task {
            defer { done.withLock { $0 = true } }
            return try await withThrowingTaskGroup(of: (Int, Answer).self) { group in
                for (index, path) in paths.enumerated() {
                    // imgproxy options after /insecure/; a whole path (thumbor's) as it is.
                    let whole = path.hasPrefix("/") ? path : "/insecure/" + path
                    group.addTask { (index, try await Self.get(whole, port: port, client: client, timeout: .seconds(120))) }
                }
                var answers = [Answer?](repeating: nil, count: paths.count)
                for try await (index, answer) in group { answers[index] = answer }
                return answers.compactMap { $0 }
            }
        }
        var health: [Duration] = []
        for _ in 0..<1_200 where !done.withLock({ $0 }) {
            let answer = try? await Self.get("/health", port: port, client: client, timeout: .seconds(60))
            health.append(answer?.status == 200 ? answer?.duration ?? .seconds(60) : .seconds(60))
            // Paces the checks (about twenty a second); nothing waits on it.
            try await Task.sleep(for: .milliseconds(50))
        }
        return (try await requests.value, health)
    }

    private static func get(_ path: String, port: Int, client: HTTPClient, timeout: TimeAmount) async throws -> Answer {
        let start = ContinuousClock.now
        let response = try await client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: timeout)
        let body = try await response.body.collect(upTo: 512 << 20)
        return Answer(status: Int(response.status.code), body: Data(body.readableBytesView), duration: start.duration(to: .now))
    }

    /// The sources: the issue's 640×480 photo, the largest the server accepts (just under 12
    /// megapixels), a 40-frame animation and a watermark.
    private static func writeSources(into folder: TemporaryFolder) throws {
        try TestImage.jpeg(width: 640, height: 480).write(to: URL(fileURLWithPath: folder.path("small.jpg")))
        try TestImage.jpeg(width: 4000, height: 2990, seed: 3).write(to: URL(fileURLWithPath: folder.path("large.jpg")))
        try TestImage.png(width: 200, height: 100, seed: 5).write(to: URL(fileURLWithPath: folder.path("mark.png")))
        let frames = try (0..<40).map { ImageFrame(bitmap: try TestImage.bitmap(width: 400, height: 300, seed: $0), duration: .milliseconds(100)) }
        try ImageEncoder().encode(frames, loopCount: 0, as: .gif).write(to: URL(fileURLWithPath: folder.path("animation.gif")))
    }

    /// The process's peak resident memory (`VmHWM`), in bytes.
    static func peakResidentBytes(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { throw FixtureError("no VmHWM in /proc/\(pid)/status") }
        return kilobytes << 10
    }
}

import Foundation
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// 400 random paths (seeded) made of the filters, output and handling options and presets,
/// with wild arguments, against a server with presets: none may answer 500, every failure is a
/// JSON error, and the server stays up.
@Suite struct OutputOptionsFuzzTests {
    static let words = ["sh", "sharpen", "pix", "pixelate", "fq", "format_quality", "mb", "max_bytes", "kcr", "scp", "raw",
                        "skp", "skip_processing", "fn", "filename", "att", "return_attachment", "pr", "preset", "w", "q", "exp", "cb"]
    static let arguments = ["0", "1", "-1", "2", "8", "100", "101", "99999999999999999999", "1e308", "nan", "inf", "0.5", "", "t",
                            "false", "jpeg", "jpg", "png", "webp", "avif", "gif", "heic", "bmpx", "thumb", "loop", "nope", "default",
                            "aGVsbG8", "%22%0D%0A", "2000"]

    @Test func randomOptionPathsNeverAnswer500() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 48, seed: 12)
        try await OriginServer.run(handler: { request in request.path.hasSuffix(".jpg") ? .ok(photo) : .status(404) }) { origin in
            var settings = testSettings()
            settings.sources = try SourcePolicy(allowedPrefixes: [origin.baseURL.absoluteString + "/"])
            settings.presets = try Presets(definitions: ["thumb=rs:fill:20:20/sh:1", "loop=pr:thumb/pr:loop/pix:3", "default=q:70"])
            settings.requestTimeout = .seconds(20)
            let source = origin.url("/x.jpg").absoluteString
            var random = SplitMix64(seed: 0x0_0070_7075)
            func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
            let paths = (0..<400).map { _ in
                let options = (0..<Int(1 + random.next() % 4)).map { _ in
                    ([pick(Self.words)] + (0..<Int(random.next() % 5)).map { _ in pick(Self.arguments) }).joined(separator: ":")
                }
                return "/insecure/" + options.joined(separator: "/") + "/plain/" + source + pick(["", "@png", "@jpg", "@webp", "@avif"])
            }
            try await RoutedServer.with(settings) { server in
                var statuses: [Int: Int] = [:]
                for chunk in stride(from: 0, to: paths.count, by: 8) {
                    let outcomes = try await withThrowingTaskGroup(of: (String, Int, Bool).self) { group in
                        for path in paths[chunk..<min(chunk + 8, paths.count)] {
                            group.addTask {
                                let answer = try await server.request(path)
                                let isJSONError = answer.json["kind"] is String && answer.json["message"] is String
                                return (path, answer.status, answer.status == 200 || isJSONError)
                            }
                        }
                        var outcomes: [(String, Int, Bool)] = []
                        for try await outcome in group { outcomes.append(outcome) }
                        return outcomes
                    }
                    for (path, status, wellFormed) in outcomes {
                        statuses[status, default: 0] += 1
                        #expect(status != 500 && status < 600, "\(path) -> \(status)")
                        #expect(wellFormed, "\(path) -> \(status) is neither an image nor a JSON error")
                    }
                }
                #expect((statuses[200] ?? 0) > 0)
                #expect((statuses[400] ?? 0) > 0)
                #expect(try await server.request("/health").status == 200)
            }
        }
    }
}

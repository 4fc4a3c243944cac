import Foundation
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// 2,000 random and malformed paths (seeded, so a failure reproduces): none may answer 500 or
/// take the server down, and every failure is a JSON error. Sources are limited to the test
/// origin's prefix, so no mutated host is ever looked up or contacted.
@Suite struct MalformedPathTests {
    static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~:@!$&'()*+,;=/%")
    static let optionWords = ["rs", "resize", "s", "w", "h", "el", "dpr", "g", "q", "f", "bg", "bl", "sm", "cb", "exp", "crop",
                              "fit", "fill", "fill-down", "force", "auto", "ce", "noea", "sm", "fp", "png", "jpg", "webp", "avif",
                              "c", "ex", "exar", "pd", "t", "z", "mw", "mh", "rot", "fl", "ar", "mrd", "extend", "padding", "trim"]
    static let values = ["0", "1", "-1", "10", "99999999999999999999", "1e308", "nan", "inf", "0.0001", "", "abc", "ff00ff", "%41", "8"]

    @Test func randomAndMalformedPathsNeverAnswer500() async throws {
        let photo = try TestImage.jpeg(width: 80, height: 60, seed: 14)
        try await OriginServer.run(handler: { request in
            request.path.hasSuffix(".jpg") ? .ok(photo) : .status(404)
        }) { origin in
            var settings = testSettings()
            settings.sources = try SourcePolicy(allowedPrefixes: [origin.baseURL.absoluteString + "/"])
            settings.queueLength = 64
            settings.requestTimeout = .seconds(10)
            let source = origin.url("/x.jpg").absoluteString
            var random = SplitMix64(seed: 0x5EED_13)
            let paths = (0..<2_000).map { _ in Self.path(source: source, random: &random) }
            try await RunningServer.with(settings) { server in
                let outcomes = try await withThrowingTaskGroup(of: (String, Int, String?, Bool).self) { group in
                    var outcomes: [(String, Int, String?, Bool)] = []
                    var next = 0
                    func add() {
                        let path = paths[next]
                        next += 1
                        group.addTask {
                            let answer = try await server.request(path)
                            let isJSONError = answer.json["kind"] is String && answer.json["message"] is String
                            return (path, answer.status, answer.header("Content-Type"), isJSONError)
                        }
                    }
                    // Eight at a time.
                    for _ in 0..<8 { add() }
                    while let outcome = try await group.next() {
                        outcomes.append(outcome)
                        if next < paths.count { add() }
                    }
                    return outcomes
                }
                #expect(outcomes.count == 2_000)
                var statuses: [Int: Int] = [:]
                for (path, status, contentType, isJSONError) in outcomes {
                    statuses[status, default: 0] += 1
                    #expect(status != 500 && status < 600, "\(path) -> \(status)")
                    if status >= 400 {
                        #expect(contentType == "application/json" && isJSONError, "\(path) -> \(status) not a JSON error")
                    } else {
                        #expect(status == 200, "\(path) -> \(status)")
                    }
                }
                // The mix exercised both sides: some served, most refused in several ways.
                print("malformed paths: statuses \(statuses.sorted { $0.key < $1.key })")
                #expect((statuses[200] ?? 0) > 0)
                #expect(statuses.keys.filter { $0 >= 400 }.count >= 3)
                #expect(try await server.request("/health").status == 200)
            }
        }
    }

    /// One path: pure noise, a mutated valid URL, or valid-looking options with bad values.
    static func path(source: String, random: inout SplitMix64) -> String {
        func pick<T>(_ list: [T]) -> T { list[Int(random.next() % UInt64(list.count))] }
        func noise(_ count: Int) -> String { String((0..<count).map { _ in pick(alphabet) }) }
        func encodedSource() -> String {
            random.next() % 2 == 0 ? "plain/" + source + (random.next() % 2 == 0 ? "@" + pick(["png", "jpg", "webp", "gif", ""]) : "")
                : Data(source.utf8).base64EncodedString().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "+", with: "-")
                    .replacingOccurrences(of: "=", with: "") + (random.next() % 2 == 0 ? "." + pick(["png", "jpg", "x"]) : "")
        }
        var path: String
        switch random.next() % 4 {
        case 0:
            path = "/" + noise(Int(random.next() % 120))
        case 1:
            let options = (0..<Int(random.next() % 5)).map { _ in
                ([pick(optionWords)] + (0..<Int(random.next() % 5)).map { _ in pick(values + optionWords) }).joined(separator: ":")
            }
            path = "/" + pick(["insecure", "_", "sig", ""]) + "/" + (options + [encodedSource()]).joined(separator: "/")
        default:
            var characters = Array("/insecure/rs:fit:40:40/q:70/" + encodedSource())
            for _ in 0..<(1 + Int(random.next() % 4)) {
                let at = Int(random.next() % UInt64(characters.count))
                switch random.next() % 4 {
                case 0: characters.remove(at: at)
                case 1: characters.insert(pick(alphabet), at: at)
                case 2: characters[at] = pick(alphabet)
                default: characters.insert(contentsOf: Array(noise(Int(random.next() % 30))), at: at)
                }
                if characters.isEmpty { characters = ["/"] }
            }
            path = String(characters)
        }
        if !path.hasPrefix("/") { path = "/" + path }
        // Keep it a valid request target: a `%` not followed by two hex digits is sent encoded.
        var result = ""
        let chars = Array(path)
        for (i, c) in chars.enumerated() {
            if c == "%", !(i + 2 < chars.count && chars[i + 1].isHexDigit && chars[i + 2].isHexDigit) {
                result += "%25"
            } else {
                result.append(c)
            }
        }
        return result
    }
}

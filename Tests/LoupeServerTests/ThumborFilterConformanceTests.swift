import Foundation
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// thumbor's filters against thumbor's own filter tests (its `tests/filters/*.py` and the images
/// of `thumbor/fixtures/filters`, read from thumbor's source distribution by
/// `Scripts/conformance/venv.sh`): each test's source served by nginx, its filter string (and
/// the fit-in and size its `config_context` sets) as a thumbor URL answered by the service, the
/// result compared with thumbor's expected image by SSIM as thumbor's tests compute it, against
/// the bound each test sets. Sources are served as thumbor's tests load them, saved by Pillow as
/// PNG, and results are asked as PNG (`format(png)` added), as those tests compare the filtered
/// image before any encoding; `quality(n)`'s test keeps its JPEG both ways.
///
/// Enabled by `LOUPE_THUMBOR_FILTER_CONFORMANCE=1`, which CI sets in its release step only: a
/// debug build's run takes over seventeen CPU-minutes, a release build's about one.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["LOUPE_THUMBOR_FILTER_CONFORMANCE"] == "1",
                "thumbor's filter conformance runs on demand: LOUPE_THUMBOR_FILTER_CONFORMANCE=1"))
struct ThumborFilterConformanceTests {
    struct Case: Sendable {
        var name: String
        var filterFile: String
        var source: String
        var filter: String
        var mode: StructuralSimilarity.Mode
        var request: [String: String]
        var unsupported: [String]
        var expectedFixture: String?
        var expectedFilter: String?
        var isEquality: Bool
        var threshold: Double
    }

    /// The cases Loupe does not pass, each explained in docs/thumbor.md's filter conformance
    /// section.
    static let explained: Set<String> = ["test_redeye.py:test_redeye_applied", "test_fill.py:test_fill_filter_with_blur_transparency_true"]

    static let sdist = Corpus.repositoryRoot.appendingPathComponent(".venv-conformance/thumbor-sdist")

    static func cases() async throws -> [Case] {
        let tests = sdist.appendingPathComponent("tests/filters")
        guard FileManager.default.fileExists(atPath: tests.appendingPathComponent("test_blur.py").path) else {
            throw CorpusMissing(path: "\(tests.path) (run bash Scripts/conformance/venv.sh)")
        }
        let output = try await PythonReference.run("thumbor_filter_cases.py", arguments: [tests.path])
        return try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let expected = try #require(object["expected"] as? [String: Any])
            let file = try #require(object["file"] as? String)
            let request = (object["request"] as? [String: Any] ?? [:]).mapValues { value in
                (value as? Bool).map { $0 ? "true" : "false" } ?? "\(value)"
            }
            return Case(name: "\(file):\(object["test"] as? String ?? "")", filterFile: String(file.dropFirst("test_".count).dropLast(".py".count)),
                        source: try #require(object["source"] as? String), filter: try #require(object["filter"] as? String),
                        mode: try #require(StructuralSimilarity.Mode(rawValue: object["mode"] as? String ?? "")),
                        request: request, unsupported: object["unsupported"] as? [String] ?? [],
                        expectedFixture: expected["fixture"] as? String, expectedFilter: expected["filter"] as? String,
                        isEquality: object["operator"] as? String == "==", threshold: (object["threshold"] as? NSNumber)?.doubleValue ?? 1)
        }
    }

    /// The thumbor path for `filter` on `source` (an nginx URL without its scheme) with the
    /// request's fit-in and size; the images a filter names (`watermark(watermark.png,…)`)
    /// are nginx's too.
    static func path(_ item: Case, filter: String, origin: String) -> String {
        var parts: [String] = ["unsafe"]
        if item.request["fit_in"] == "true" {
            let adaptive = item.request["adaptive"] == "true", full = item.request["full"] == "true"
            parts.append((adaptive ? "adaptive-" : "") + (full ? "full-" : "") + "fit-in")
        }
        if item.request["width"] != nil || item.request["height"] != nil {
            parts.append("\(item.request["width"] ?? "0")x\(item.request["height"] ?? "0")")
        }
        var filters = filter.replacingOccurrences(of: "(watermark", with: "(\(origin)/watermark")
        if !filter.hasPrefix("quality(") { filters += ":format(png)" }
        if item.request["stretch"] == "true", !filter.hasPrefix("stretch(") { filters += ":stretch()" }
        parts.append("filters:" + filters)
        parts.append("\(origin)/\(item.source)" + (filter.hasPrefix("quality(") ? "" : ".png"))
        return "/" + parts.joined(separator: "/")
    }

    /// The case's SSIM, or why it has none.
    static func measure(_ item: Case, server: RoutedServer, origin: String) async throws -> Result<Double, TestFailure> {
        guard item.unsupported.isEmpty else { return .failure(TestFailure("its config_context sets \(item.unsupported)")) }
        func image(_ filter: String) async throws -> Result<Bitmap, TestFailure> {
            let answer = try await server.request(path(item, filter: filter, origin: origin))
            guard answer.status == 200 else {
                return .failure(TestFailure("\(filter) answered \(answer.status): \(String(decoding: answer.body.prefix(200), as: UTF8.self))"))
            }
            return .success(try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).bitmap)
        }
        let actual: Bitmap
        switch try await image(item.filter) {
        case .success(let bitmap): actual = bitmap
        case .failure(let failure): return .failure(failure)
        }
        let expected: Bitmap
        if let fixture = item.expectedFixture {
            let data = try Data(contentsOf: sdist.appendingPathComponent("thumbor/fixtures/filters/\(fixture)"))
            expected = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true)).bitmap
        } else {
            switch try await image(try #require(item.expectedFilter)) {
            case .success(let bitmap): expected = bitmap
            case .failure(let failure): return .failure(failure)
            }
        }
        guard let ssim = StructuralSimilarity.index(actual, expected, mode: item.mode) else {
            return .failure(TestFailure("the result is \(actual.width)x\(actual.height), thumbor's \(expected.width)x\(expected.height)"))
        }
        let passes = item.isEquality ? ssim >= 1 - 1e-9 : ssim > item.threshold
        return passes ? .success(ssim) : .failure(TestFailure(String(format: "SSIM %.4f, thumbor requires %@ %.2f", ssim, item.isEquality ? "=" : ">", item.threshold)))
    }

    @Test func thumborsFilterTestsPass() async throws {
        let read = try await Self.cases()
        #expect(read.count >= 55, "thumbor's filter tests read: \(read.count)")
        // LOUPE_THUMBOR_FILTER_ONLY=test_fill,test_focal: those files' cases alone, while working on them.
        let only = ProcessInfo.processInfo.environment["LOUPE_THUMBOR_FILTER_ONLY"]?.split(separator: ",")
        let cases = only.map { only in read.filter { item in only.contains { item.name.hasPrefix($0) } } } ?? read
        let fixtures = Self.sdist.appendingPathComponent("thumbor/fixtures/filters")
        var files: [String: Data] = [:]
        let sources = Set(cases.map(\.source))
        for name in sources.union(["watermark.png", "watermarkBig.png"]) {
            files[name] = try Data(contentsOf: fixtures.appendingPathComponent(name))
        }
        // Each source also as thumbor's tests load it: saved by Pillow as PNG.
        let converted = FileManager.default.temporaryDirectory.appendingPathComponent("thumbor-sources-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: converted, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: converted) }
        _ = try await PythonReference.run("thumbor_filter_sources.py", arguments: [converted.path] + sources.map { fixtures.appendingPathComponent($0).path })
        for name in sources { files[name + ".png"] = try Data(contentsOf: converted.appendingPathComponent(name + ".png")) }
        files["watermark"] = files["watermark.png"]
        let nginx = try NginxServer.start(files: files)
        defer { nginx.stop() }
        let origin = String(nginx.url("/").absoluteString.dropFirst("http://".count).dropLast())
        var settings = testSettings()
        settings.thumborAllowsUnsafe = true
        let outcomes = try await RoutedServer.with(settings) { server in
            var outcomes: [(Case, Result<Double, TestFailure>)] = []
            for item in cases { outcomes.append((item, try await Self.measure(item, server: server, origin: origin))) }
            return outcomes
        }
        var report: [String: (passed: Int, total: Int)] = [:]
        var failed: [String] = []
        for (item, outcome) in outcomes {
            var row = report[item.filterFile, default: (0, 0)]
            row.total += 1
            switch outcome {
            case .success: row.passed += 1
            case .failure(let why): failed.append("\(item.name) \(item.filter): \(why)")
            }
            report[item.filterFile] = row
        }
        let passed = report.values.map(\.passed).reduce(0, +)
        print("thumbor filter conformance: \(passed)/\(cases.count) pass; "
              + report.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value.passed)/\($0.value.total)" }.joined(separator: ", "))
        for line in failed { print("  failed: \(line)") }
        let unexplained = failed.filter { line in !Self.explained.contains { line.hasPrefix($0 + " ") } }
        #expect(unexplained.isEmpty, "failures not explained in docs/thumbor.md:\n\(unexplained.joined(separator: "\n"))")
    }
}

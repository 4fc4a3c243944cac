import Foundation
import LoupeTestSupport
import Testing

/// imgproxy 4's own tests run against the `loupe` binary built beside this bundle, over HTTP:
/// the rows of its `processing/*_test.go` files (`Scripts/conformance/imgproxy_processing.py`:
/// status, pixel size, colourspace and bit depth, the tests' relations between answers) and the
/// cases of its URL-parser tests, those that change the parser's settings first included
/// (`Scripts/conformance/imgproxy_parser.py`). The scripts read the test files from imgproxy's
/// repository when they run, nothing is copied; their output names every failing row.
///
/// They need imgproxy's repository and its test-images repository as git directories (bare
/// mirrors will do): `LOUPE_IMGPROXY_REPO` and `LOUPE_IMGPROXY_TEST_IMAGES` name them, and
/// without both the suite is skipped. CI does not set them: its runners cannot reach GitHub to
/// fetch the repositories.
@Suite(.enabled(if: imgproxyRepositories != nil,
                "imgproxy's own tests run when LOUPE_IMGPROXY_REPO and LOUPE_IMGPROXY_TEST_IMAGES name its repositories"))
struct ImgproxySuiteConformanceTests {
    /// Runs `script` and reads its `TOTAL passed/total` line.
    static func run(_ script: String) async throws -> (passed: Int, total: Int, report: String) {
        let repositories = try #require(imgproxyRepositories)
        let output = try await PythonReference.run(script, arguments: [
            "--loupe", ChildProcess.product("loupe").path,
            "--imgproxy-repo", repositories.imgproxy, "--test-images", repositories.testImages,
        ])
        let report = String(decoding: output, as: UTF8.self)
        let total = try #require(report.split(separator: "\n").first { $0.hasPrefix("TOTAL ") }, "no TOTAL line in:\n\(report)")
        let counts = total.dropFirst("TOTAL ".count).split(separator: " ")[0].split(separator: "/").compactMap { Int($0) }
        try #require(counts.count == 2, "unreadable TOTAL line '\(total)'")
        return (counts[0], counts[1], report)
    }

    /// At least 98 % of the processing rows pass (the rest are listed in the report).
    @Test func processingRows() async throws {
        let result = try await Self.run("imgproxy_processing.py")
        #expect(result.total > 500, "imgproxy's processing tests read as only \(result.total) rows:\n\(result.report)")
        #expect(result.passed * 100 >= result.total * 98, "\(result.passed)/\(result.total) rows pass:\n\(result.report)")
    }

    /// Every URL-parser case passes.
    @Test func parserCases() async throws {
        let result = try await Self.run("imgproxy_parser.py")
        #expect(result.total > 60, "imgproxy's parser tests read as only \(result.total) cases:\n\(result.report)")
        #expect(result.passed == result.total, "\(result.passed)/\(result.total) cases pass:\n\(result.report)")
    }
}

/// imgproxy's repository and its test images' (git directories), when both are named.
private var imgproxyRepositories: (imgproxy: String, testImages: String)? {
    let environment = ProcessInfo.processInfo.environment
    guard let imgproxy = environment["LOUPE_IMGPROXY_REPO"], !imgproxy.isEmpty,
          let testImages = environment["LOUPE_IMGPROXY_TEST_IMAGES"], !testImages.isEmpty else { return nil }
    return (imgproxy, testImages)
}

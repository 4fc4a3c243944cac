import Foundation
import Testing

/// Every Swift example of the library's documentation is compiled and run by a test: each
/// ```` ```swift ```` block of docs/library.md, docs/lists.md, the Loupe DocC catalog's articles
/// and README.md (but for README blocks importing LoupeServer, the embedding example's, which
/// `Examples/EmbeddedService` builds and tests) must appear line for line in one of this
/// folder's test files, where it runs between its fixtures and the checks of what it did. So an
/// example that stops compiling, warns (tests build with warnings as errors) or stops doing what
/// the page says fails CI. Lines are compared without their indentation, runs of spaces, blank
/// lines and `import`s (a test file has its own); a block whose first line is
/// `// Package.swift` is a manifest fragment and is not compiled.
@Suite struct DocumentationExamplesCoverageTests {
    /// A Swift block of a page.
    struct Example: CustomStringConvertible {
        var page: String
        var line: Int
        var lines: [String]
        var description: String { "\(page):\(line)" }
    }

    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The pages whose examples are checked, relative to the repository's root.
    static func pages() throws -> [String] {
        let catalog = "Sources/Loupe/Loupe.docc"
        let articles = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent(catalog).path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "\(catalog)/\($0)" }
        return ["README.md", "docs/library.md", "docs/lists.md"] + articles
    }

    /// A line as compared: no indentation, single spaces.
    static func normalized(_ line: Substring) -> String {
        line.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
    }

    /// The lines that are compared, of a block or a test file.
    static func comparable(_ lines: [Substring]) -> [String] {
        lines.map(normalized).filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    /// Every checked Swift block of `page`.
    static func examples(of page: String) throws -> [Example] {
        let text = try String(contentsOf: root.appendingPathComponent(page), encoding: .utf8)
        var examples: [Example] = [], block: [Substring]?, start = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if block == nil, trimmed == "```swift" {
                block = []
                start = index + 2
            } else if let lines = block, trimmed.hasPrefix("```") {
                block = nil
                let isManifest = lines.first.map(normalized) == "// Package.swift"
                let isService = page == "README.md" && lines.contains { normalized($0) == "import LoupeServer" }
                if !isManifest && !isService { examples.append(Example(page: page, line: start, lines: comparable(lines))) }
            } else if block != nil {
                block?.append(line)
            }
        }
        return examples
    }

    /// The comparable lines of each test file of this folder.
    static func testFiles() throws -> [[String]] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix("Tests.swift") }.map { name in
            comparable(try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).split(separator: "\n"))
        }
    }

    @Test func everyLibraryExampleOfTheDocumentationIsCompiledAndRunHere() throws {
        let files = try Self.testFiles()
        var examples: [Example] = []
        for page in try Self.pages() { examples += try Self.examples(of: page) }
        // What the pages hold today: a page that loses its examples should not pass unnoticed.
        #expect(examples.count >= 24)
        for example in examples {
            let found = files.contains { file in
                file.count >= example.lines.count
                    && (0...(file.count - example.lines.count)).contains { Array(file[$0..<($0 + example.lines.count)]) == example.lines }
            }
            #expect(found, "\(example): this example is not in a test of Tests/LoupeTests/Documentation (line for line)")
        }
    }

    @Test func theComparisonIgnoresOnlyLayout() throws {
        let block = Self.comparable(["import Loupe", "", "    let a = f(x,  y)   // why", "}"])
        #expect(block == ["let a = f(x, y) // why", "}"])
        #expect(Self.comparable(["let a = f(x, y) // because"]) != ["let a = f(x, y) // why"])
    }
}

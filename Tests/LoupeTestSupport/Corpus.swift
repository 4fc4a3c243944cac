import Foundation

/// The test corpus that Scripts/fetch-corpus.sh assembles in `Corpus/` (Scripts/ci/test.sh runs it
/// first): the one place the codec and processing tests find its files.
package enum Corpus {
    /// The repository checkout the tests run from.
    package static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The corpus folder.
    package static let root = repositoryRoot.appendingPathComponent("Corpus")

    /// A corpus file, by its path inside the corpus ("skimage/coffee.png").
    package static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// A corpus file's bytes; ``CorpusMissing`` when the corpus was not fetched.
    package static func data(_ path: String) throws -> Data {
        let url = url(path)
        guard FileManager.default.fileExists(atPath: url.path) else { throw CorpusMissing(path: url.path) }
        return try Data(contentsOf: url)
    }

    /// Every file directly in corpus folder `folder` whose name ends with one of `suffixes`
    /// (".png", ".lossless.webp"; any case), as paths inside the corpus ("go-png/basn0g01.png"),
    /// sorted by name. A missing folder is an error: the conformance tests must fail, not pass on
    /// nothing, when the corpus was not fetched.
    package static func files(in folder: String, suffixes: [String]) throws -> [String] {
        let directory = url(folder)
        guard FileManager.default.fileExists(atPath: directory.path) else { throw CorpusMissing(path: directory.path) }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { name in suffixes.contains { name.lowercased().hasSuffix($0) } }
            .sorted()
            .map { "\(folder)/\($0)" }
    }
}

/// A corpus file or folder (or something else Scripts/ci/test.sh prepares) is not there.
package struct CorpusMissing: Error, CustomStringConvertible {
    /// What is missing.
    package let path: String

    package init(path: String) {
        self.path = path
    }

    package var description: String { "corpus file \(path) is missing: run Scripts/fetch-corpus.sh" }
}

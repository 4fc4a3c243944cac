import Foundation
import LoupeTestSupport

/// Pillow + ImageCms decodes of corpus files (Scripts/conformance/color_reference.py, run in the
/// conformance venv): the reference our colour-managed decodes are compared with.
struct ColorReference: Decodable {
    let file: String
    let width: Int
    let height: Int
    /// Pillow's mode for the file (RGB, RGBA, L, CMYK).
    let mode: String
    /// Whether the file embeds an ICC profile.
    let profile: Bool
    /// Path of the raw RGBA8 pixels.
    let pixels: String

    /// Runs the script over `files` (paths relative to the repository), writing into `directory`.
    static func load(_ files: [String], into directory: URL) throws -> [ColorReference] {
        let root = Corpus.repositoryRoot
        let python = root.appendingPathComponent(".venv-conformance/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw CorpusMissing(path: "\(python.path) (run Scripts/conformance/venv.sh)")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [root.appendingPathComponent("Scripts/conformance/color_reference.py").path, directory.path] + files
        process.currentDirectoryURL = root
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Read to the end first: waiting for exit with a full pipe would deadlock.
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw ReferenceFailed(status: process.terminationStatus) }
        return try JSONDecoder().decode([ColorReference].self, from: data)
    }

    struct ReferenceFailed: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "color_reference.py exited with status \(status) (its stderr is above)" }
    }
}

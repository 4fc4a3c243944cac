import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing

/// Paths in the repository checkout the tests run from.
enum Repository {
    static let root = Corpus.repositoryRoot

    /// ``Corpus/files(in:suffixes:)`` as paths from the repository root ("Corpus/skimage/coffee.png"):
    /// the form the Python references are given and name their results by.
    static func corpusFiles(in folder: String, suffixes: [String]) throws -> [String] {
        try Corpus.files(in: folder, suffixes: suffixes).map { "Corpus/\($0)" }
    }
}

/// Something the test needs that Scripts/test.sh prepares is not there.
struct SetupMissing: Error, CustomStringConvertible {
    let what: String
    let fix: String
    var description: String { "\(what) is missing; run `\(fix)` (Scripts/test.sh does)" }
}

/// Runs a Python reference script from Scripts/conformance in the conformance venv.
///
/// The wait happens on a Dispatch thread, not on Swift's cooperative pool: the references take
/// minutes, and the pool has only as many threads as cores (two in CI); blocking them would
/// starve the concurrency tests that run in parallel and wait on timeouts.
enum PythonReference {
    static func run(_ script: String, arguments: [String]) async throws -> Data {
        let python = Repository.root.appendingPathComponent(".venv-conformance/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw SetupMissing(what: "the conformance venv \(python.path)", fix: "bash Scripts/conformance/venv.sh")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = [Repository.root.appendingPathComponent("Scripts/conformance/\(script)").path] + arguments
        process.currentDirectoryURL = Repository.root
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let (data, status) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Int32), Never>) in
            DispatchQueue.global().async {
                // Read to the end first: waiting for exit with a full pipe would deadlock.
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (data, process.terminationStatus))
            }
        }
        guard status == 0 else { throw ReferenceFailed(script: script, status: status) }
        return data
    }

    struct ReferenceFailed: Error, CustomStringConvertible {
        let script: String
        let status: Int32
        var description: String { "Python reference \(script) exited with status \(status) (its stderr is above)" }
    }
}

/// Runs CPU-heavy synchronous test work on a Dispatch thread, for the reason PythonReference
/// gives. `body` must not use `#expect` (no test context there): return what to check.
func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-processing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// A bitmap from rows of (r, g, b, a) tuples or a flat generator.
func makeBitmap(width: Int, height: Int, _ pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) throws -> Bitmap {
    var bytes = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let (r, g, b, a) = pixel(x, y)
            let i = (y * width + x) * 4
            bytes[i] = r; bytes[i + 1] = g; bytes[i + 2] = b; bytes[i + 3] = a
        }
    }
    return try Bitmap(width: width, height: height, pixels: bytes)
}

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

/// Runs CPU-heavy synchronous test work on a Dispatch thread, for the reason `PythonReference.run`
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

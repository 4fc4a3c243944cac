import Foundation
import Testing
@testable import LoupeCodecs

/// The corpus that Scripts/fetch-corpus.sh assembles (Scripts/test.sh runs it first).
enum Corpus {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    static func data(_ path: String) throws -> Data {
        let url = url(path)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw CorpusMissing(path: url.path)
        }
        return try Data(contentsOf: url)
    }

    /// Every file in `folder` whose extension is one of `extensions`, sorted by name.
    static func files(in folder: String, extensions: Set<String>) throws -> [String] {
        let directory = url(folder)
        guard FileManager.default.fileExists(atPath: directory.path) else { throw CorpusMissing(path: directory.path) }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { extensions.contains(($0 as NSString).pathExtension.lowercased()) }
            .sorted()
            .map { "\(folder)/\($0)" }
    }
}

struct CorpusMissing: Error, CustomStringConvertible {
    let path: String
    var description: String { "corpus file \(path) is missing: run Scripts/fetch-corpus.sh" }
}

/// A deterministic RGBA test pattern: smooth gradients (JPEG-friendly) and, if asked, an
/// alpha ramp.
func gradientBitmap(width: Int, height: Int, alpha: Bool = false) throws -> Bitmap {
    var pixels = [UInt8](repeating: 0, count: width * height * 4)
    for y in 0..<height {
        for x in 0..<width {
            let i = (y * width + x) * 4
            pixels[i] = UInt8(x * 255 / max(1, width - 1))
            pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
            pixels[i + 2] = UInt8((x + y) * 255 / max(1, width + height - 2))
            pixels[i + 3] = alpha ? UInt8(255 - x * 255 / max(1, width - 1)) : 255
        }
    }
    return try Bitmap(width: width, height: height, pixels: pixels)
}

/// Decodes a corpus file with the default decoder.
func decodeCorpus(_ path: String, options: DecodingOptions = DecodingOptions()) throws -> DecodedImage {
    try ImageDecoder().decode(try Corpus.data(path), options: options)
}

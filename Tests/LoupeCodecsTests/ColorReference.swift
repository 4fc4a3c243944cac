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
        let data = try PythonReference.runBlocking("color_reference.py", arguments: [directory.path] + files)
        return try JSONDecoder().decode([ColorReference].self, from: data)
    }
}

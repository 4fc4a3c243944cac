import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

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

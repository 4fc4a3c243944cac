import Foundation
import LoupeCodecs

/// Encoded test images: a gradient whose colours depend on `seed`, so two seeds differ.
package enum TestImage {
    package static func bitmap(width: Int, height: Int, seed: Int) throws -> Bitmap {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) &+ seed &* 40)
                pixels[i + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1) &+ seed &* 70)
                pixels[i + 2] = UInt8(truncatingIfNeeded: seed &* 97)
            }
        }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    /// A PNG of pseudo-random pixels: about 4 bytes per pixel whatever the compression.
    package static func noisePNG(width: Int, height: Int) throws -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let pixels = (0..<width * height * 4).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .png)
    }

    package static func jpeg(width: Int, height: Int, seed: Int = 0) throws -> Data {
        try ImageEncoder().encode(bitmap(width: width, height: height, seed: seed), as: .jpeg(quality: 90))
    }

    package static func png(width: Int, height: Int, seed: Int = 0) throws -> Data {
        try ImageEncoder().encode(bitmap(width: width, height: height, seed: seed), as: .png)
    }

    /// A corpus photo (by default skimage's rocket, 640×427) decoded and encoded again by
    /// libjpeg-turbo: progressive (the scans of its `jpeg_simple_progression`, ten for colour,
    /// as `jpegtran -progressive` writes) or baseline.
    package static func photoJPEG(_ path: String = "skimage/rocket.jpg", progressive: Bool, quality: Int = 90) throws -> Data {
        let photo = try ImageDecoder().decode(Corpus.data(path), options: DecodingOptions())
        return try ImageEncoder().encode(photo.bitmap, as: .jpeg(quality: quality, progressive: progressive))
    }
}

import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// JPEG XL, HEIC, TIFF, BMP and ICO as Loupe writes them, read back by Loupe's decoders and by
/// Pillow with its HEIF and JPEG XL plugins (Scripts/conformance/format_reference.py): the
/// format, the size, whether there is alpha, and the pixels.
@Suite struct NewEncoderRoundTripTests {
    struct Description: Decodable {
        let format: String
        let width: Int
        let height: Int
        let alpha: Bool
        let mean: [Double]
    }

    /// Encoder settings, the name Pillow gives the format, and the largest mean difference per
    /// channel from the original allowed (lossless formats: none).
    static let cases: [(format: ImageEncoder.Format, pillow: String, opaqueMean: Double, alphaMean: Double)] = [
        (.jxl(quality: 90), "JXL", 1.5, 1.5),
        (.heic(quality: 90), "HEIF", 2.5, 2.5),
        (.tiff, "TIFF", 0, 0),
        (.bmp, "BMP", 0, 0),
        (.ico, "ICO", 0, 0),
    ]

    @Test func encodedFilesReadBack() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        var paths: [String] = []
        var expectations: [(label: String, bitmap: Bitmap, pillow: String, alpha: Bool)] = []
        for (index, entry) in Self.cases.enumerated() {
            for alpha in [false, true] {
                let bitmap = try gradientBitmap(width: 96, height: 64, alpha: alpha)
                let data = try ImageEncoder().encode(bitmap, as: entry.format)
                let label = "\(entry.format.imageFormat)\(alpha ? " with alpha" : "")"
                #expect(ImageFormat(sniffing: data) == entry.format.imageFormat, "\(label)")
                let decoded = try ImageDecoder().decode(data, options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap
                try #require(decoded.width == 96 && decoded.height == 64, "\(label): \(decoded.width)x\(decoded.height)")
                #expect(decoded.hasTransparency == alpha, "\(label)")
                let difference = PixelDifference(decoded, bitmap)
                #expect(difference.mean <= (alpha ? entry.alphaMean : entry.opaqueMean), "\(label): mean difference \(difference.mean)")
                let path = folder.path("\(index)-\(alpha).\(entry.format.imageFormat.fileExtension)")
                try data.write(to: URL(fileURLWithPath: path))
                paths.append(path)
                expectations.append((label, bitmap, entry.pillow, alpha))
            }
        }
        let output = try await PythonReference.run("format_reference.py", arguments: ["describe"] + paths)
        let descriptions = try JSONDecoder().decode([Description].self, from: output)
        try #require(descriptions.count == expectations.count)
        for (description, expected) in zip(descriptions, expectations) {
            #expect(description.format == expected.pillow, "\(expected.label): Pillow reads \(description.format)")
            #expect(description.width == 96 && description.height == 64, "\(expected.label)")
            #expect(description.alpha == expected.alpha, "\(expected.label): Pillow's mode")
            let mean = Self.mean(expected.bitmap)
            for channel in 0..<4 {
                #expect(abs(description.mean[channel] - mean[channel]) <= 2, "\(expected.label): channel \(channel) \(description.mean) vs \(mean)")
            }
        }
    }

    static func mean(_ bitmap: Bitmap) -> [Double] {
        var sums = [Double](repeating: 0, count: 4)
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width {
                let p = bitmap.pixel(x: x, y: y)
                sums[0] += Double(p.r); sums[1] += Double(p.g); sums[2] += Double(p.b); sums[3] += Double(p.a)
            }
        }
        return sums.map { $0 / Double(bitmap.width * bitmap.height) }
    }

    /// An icon holds at most 256 pixels a side; the encoder refuses more (the service scales
    /// results to fit first, as imgproxy does).
    @Test func iconsAreAtMost256PixelsASide() throws {
        #expect(try ImageEncoder().encode(gradientBitmap(width: 256, height: 100), as: .ico).count > 22)
        #expect(throws: ImageCodecError.self) { try ImageEncoder().encode(try gradientBitmap(width: 257, height: 100), as: .ico) }
    }

    /// Quality and effort out of range are refused before any encoding.
    @Test func settingsOutOfRangeAreRefused() throws {
        let bitmap = try gradientBitmap(width: 8, height: 8)
        for format in [ImageEncoder.Format.jxl(quality: 101), .jxl(quality: 50, effort: 0), .heic(quality: -1)] {
            #expect(throws: ImageCodecError.self, "\(format)") { try ImageEncoder().encode(bitmap, as: format) }
        }
    }

    /// Lower JPEG XL and HEIC qualities give smaller files (the quality reaches the encoder).
    @Test func qualityChangesTheSize() throws {
        let bitmap = try ImageDecoder().decode(Corpus.data("skimage/coffee.png")).bitmap
        for (high, low) in [(ImageEncoder.Format.jxl(quality: 90), ImageEncoder.Format.jxl(quality: 40)), (.heic(quality: 90), .heic(quality: 40))] {
            let large = try ImageEncoder().encode(bitmap, as: high).count
            let small = try ImageEncoder().encode(bitmap, as: low).count
            #expect(small < large * 3 / 4, "\(high): \(large) bytes, \(low): \(small) bytes")
        }
    }
}

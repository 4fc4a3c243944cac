import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// TIFF, BMP and ICO files from Debian's packages (golang.org/x/image's and gdk-pixbuf's test
/// files) and a few made from them by Pillow and ImageMagick (Scripts/fetch-corpus.sh, legacy/),
/// decoded against Pillow's RGBA decode of the same file.
@Suite struct LegacyFormatTests {
    /// File and the largest per-channel difference from Pillow allowed. Measured: every file
    /// identical except the 16-bit ones (libtiff rounds 16 to 8 bits, Pillow truncates).
    static let files: [(path: String, format: ImageFormat, maximum: Int)] = [
        ("blue-purple-pink.lzwcompressed.tiff", .tiff, 0),
        ("bw-deflate.tiff", .tiff, 0),
        ("bw-gopher_ccittGroup3.tiff", .tiff, 0),
        ("bw-gopher_ccittGroup4.tiff", .tiff, 0),
        ("bw-packbits.tiff", .tiff, 0),
        ("bw-uncompressed.tiff", .tiff, 0),
        ("dpi.tiff", .tiff, 0),
        ("no_compress.tiff", .tiff, 0),
        ("no_rps.tiff", .tiff, 0),
        ("tux-alpha.tiff", .tiff, 0),
        ("video-001-16bit.tiff", .tiff, 1),
        ("video-001-gray-16bit.tiff", .tiff, 1),
        ("video-001-gray.tiff", .tiff, 0),
        ("video-001-paletted.tiff", .tiff, 0),
        ("video-001-strip-64.tiff", .tiff, 0),
        ("video-001-tile-64x64.tiff", .tiff, 0),
        ("video-001-uncompressed.tiff", .tiff, 0),
        ("video-001.tiff", .tiff, 0),
        ("colormap.bmp", .bmp, 0),
        ("video-001.bmp", .bmp, 0),
        ("yellow_rose-small.bmp", .bmp, 0),
        ("yellow_rose-small-v5.bmp", .bmp, 0),
        ("tux-bmp.ico", .ico, 0),
        ("tux-png.ico", .ico, 0),
    ]

    @Test func matchesPillow() throws {
        for file in Self.files {
            let data = try Corpus.data("legacy/\(file.path)")
            #expect(ImageFormat(sniffing: data) == file.format, "\(file.path)")
            let image = try ImageDecoder().decode(data, options: DecodingOptions(colorManagement: .keepSourcePixels))
            #expect(image.metadata.format == file.format, "\(file.path)")
            let reference = try PNGDecoder().decode(Corpus.data("legacy/reference/\(Self.reference(for: file.path)).png"),
                                                    options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap
            try #require(image.bitmap.width == reference.width && image.bitmap.height == reference.height,
                         "\(file.path): \(image.bitmap.width)x\(image.bitmap.height), Pillow \(reference.width)x\(reference.height)")
            let metadata = try ImageDecoder().metadata(of: data)
            #expect(metadata.width == reference.width && metadata.height == reference.height, "\(file.path): header size")
            let difference = PixelDifference(Self.visible(image.bitmap), Self.visible(reference))
            #expect(difference.maximum <= file.maximum, "\(file.path): maximum difference \(difference.maximum)")
            #expect(image.bitmap.hasTransparency == reference.hasTransparency, "\(file.path)")
        }
    }

    /// The file whose Pillow decode is the reference: its own, except for the 16-bit grey TIFF,
    /// which Pillow clips to white when it converts to RGBA; the 8-bit grey TIFF of the same
    /// picture stands in.
    static func reference(for path: String) -> String {
        path == "video-001-gray-16bit.tiff" ? "video-001-gray.tiff" : path
    }

    /// `bitmap` with the colour of fully transparent pixels cleared: libtiff hands alpha
    /// premultiplied, so what was under it is gone (and nothing shows it).
    static func visible(_ bitmap: Bitmap) -> Bitmap {
        var pixels = bitmap.pixels
        for i in stride(from: 0, to: pixels.count, by: 4) where pixels[i + 3] == 0 {
            pixels[i] = 0
            pixels[i + 1] = 0
            pixels[i + 2] = 0
        }
        return (try? Bitmap(width: bitmap.width, height: bitmap.height, bytesPerRow: bitmap.bytesPerRow, pixels: pixels)) ?? bitmap
    }

    /// The Orientation tag is reported as stored and applied when asked, as EXIF's is.
    @Test func tiffOrientationTag() throws {
        let data = try Corpus.data("legacy/coffee-orientation6.tiff")
        let metadata = try TIFFDecoder().metadata(of: data)
        #expect(metadata.orientation == .right)
        #expect(metadata.width == 600 && metadata.height == 400)
        let stored = try TIFFDecoder().decode(data, options: DecodingOptions())
        #expect(stored.bitmap.width == 600 && stored.bitmap.height == 400)
        let upright = try TIFFDecoder().decode(data, options: DecodingOptions(appliesOrientation: true))
        #expect(upright.bitmap.width == 400 && upright.bitmap.height == 600)
        #expect(upright.bitmap == ExifOrientation.right.apply(to: stored.bitmap))
    }

    /// A P3 TIFF's profile is applied: the pixels land near the sRGB JPEG it was made from
    /// (itself decoded through its P3 profile), and far from it when kept as stored.
    @Test func tiffICCProfileIsApplied() throws {
        let managed = try decodeCorpus("legacy/p3.tiff").bitmap
        let stored = try decodeCorpus("legacy/p3.tiff", options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap
        let jpeg = try decodeCorpus("color/p3.jpg").bitmap
        let managedDifference = PixelDifference(managed, jpeg, ignoringAlpha: true)
        let storedDifference = PixelDifference(stored, jpeg, ignoringAlpha: true)
        #expect(managedDifference.maximum <= 1, "managed: \(managedDifference.maximum)")
        #expect(storedDifference.mean > 3, "stored: \(storedDifference.mean)")
    }

    /// Hand-made headers that declare more pixels than the limit: refused from the header,
    /// before any pixel buffer exists.
    @Test func bombsAreRefusedFromTheHeader() throws {
        let limit = DecodingLimits().maxPixelCount
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 100_000, height: 100_000, limit: limit)) {
            try ImageDecoder().decode(LegacyBombs.tiff(width: 100_000, height: 100_000))
        }
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 50_000, height: 50_000, limit: limit)) {
            try ImageDecoder().decode(LegacyBombs.bmp(width: 50_000, height: 50_000))
        }
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 30_000, height: 30_000, limit: limit)) {
            try ImageDecoder().decode(LegacyBombs.ico(width: 30_000, height: 30_000))
        }
        // Under the limit, the same BMP header is refused for the rows it does not have.
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(LegacyBombs.bmp(width: 5_000, height: 5_000)) }
    }

    /// gdk-pixbuf's broken TIFF, BMP and ICO files: each a typed error or an image, never a
    /// crash.
    @Test func brokenFilesFailCleanly() throws {
        let directory = Corpus.url("gdk-pixbuf")
        let names = try FileManager.default.subpathsOfDirectory(atPath: directory.path)
            .filter { ["bmp", "ico", "tif", "tiff"].contains(($0 as NSString).pathExtension) }
        #expect(names.count >= 15)
        var refused = 0
        for name in names {
            let data = try Data(contentsOf: directory.appendingPathComponent(name))
            do {
                _ = try ImageDecoder().decode(data)
            } catch is ImageCodecError {
                refused += 1
            }
        }
        #expect(refused >= names.count / 2, "\(refused) of \(names.count) refused")
    }
}

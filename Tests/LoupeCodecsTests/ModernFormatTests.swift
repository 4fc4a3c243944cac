import CLoupeCodecs
import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// HEIF, AVIF and JPEG XL files made by heif-enc, avifenc and cjxl (Scripts/fetch-corpus.sh),
/// decoded and colour-managed, against vips's decode of the same file (its PNG, ICC profile
/// kept) converted to sRGB by Pillow + ImageCms.
@Suite struct ModernFormatTests {
    /// File, expected format, and the largest per-channel difference from the reference
    /// allowed (the mean must be at most 1.5). Measured on Debian 12: HEIF and JPEG XL 0 (vips
    /// uses the same libheif and libjxl, and its profile goes through the same lcms2 settings);
    /// AVIF 1 (mean 0.13), 10-bit 2 (mean 0.32), P3 4 (mean 0.16): vips reads AVIF through
    /// libheif, whose YCbCr → RGB conversion rounds differently from libavif's.
    static let files: [(path: String, format: ImageFormat, maximum: Int)] = [
        ("formats/coffee.heic", .heif, 0),
        ("formats/coffee-10bit.heic", .heif, 0),
        ("formats/tux-alpha.heic", .heif, 0),
        ("formats/p3.heic", .heif, 0),
        ("formats/coffee-irot.heic", .heif, 0),
        ("formats/coffee-irot-imir.heic", .heif, 0),
        ("formats/coffee-thumbnail.heic", .heif, 0),
        ("formats/coffee.avif", .avif, 1),
        ("formats/coffee-10bit.avif", .avif, 2),
        ("formats/tux-alpha.avif", .avif, 1),
        ("formats/p3.avif", .avif, 4),
        ("formats/coffee-irot1.avif", .avif, 1),
        ("formats/coffee-irot3-imir1.avif", .avif, 1),
        ("formats/coffee-imir0.avif", .avif, 1),
        ("formats/coffee.jxl", .jxl, 0),
        ("formats/coffee-lossless.jxl", .jxl, 0),
        ("formats/tux-alpha.jxl", .jxl, 0),
        ("formats/p3.jxl", .jxl, 0),
    ]

    @Test func matchesVipsWithImageCms() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-formats-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let references = try ColorReference.load(Self.files.map { "Corpus/formats/reference/\(($0.path as NSString).lastPathComponent).png" },
                                                 into: directory)
        try #require(references.count == Self.files.count)
        for (reference, file) in zip(references, Self.files) {
            let data = try Corpus.data(file.path)
            #expect(ImageFormat(sniffing: data) == file.format, "\(file.path)")
            let image = try ImageDecoder().decode(data, options: DecodingOptions(appliesOrientation: true))
            #expect(image.metadata.format == file.format)
            try Self.expect(image.bitmap, near: reference, maximum: file.maximum, "\(file.path) (vips)")
            #expect(image.bitmap.hasTransparency == file.path.contains("alpha"), "\(file.path)")
            #expect(image.warning == nil, "\(file.path): \(image.warning ?? "")")
        }
    }

    /// HEIF and AVIF against a second decoder: Pillow with pillow-heif (libheif 1.18) and
    /// pillow-avif-plugin (libavif 1.x with dav1d), converted by ImageCms the same way. The AVIF
    /// files with irot/imir are left to the vips comparison: pillow-avif-plugin ignores those
    /// boxes. Measured: every file identical except the 10-bit AVIF (maximum 1, mean 0.21).
    static let pillowFiles: [(path: String, maximum: Int)] = [
        ("formats/coffee.heic", 0), ("formats/coffee-10bit.heic", 0), ("formats/tux-alpha.heic", 0),
        ("formats/p3.heic", 0), ("formats/coffee-irot.heic", 0), ("formats/coffee-irot-imir.heic", 0),
        ("formats/coffee.avif", 0), ("formats/coffee-10bit.avif", 1), ("formats/tux-alpha.avif", 0),
        ("formats/p3.avif", 0),
    ]

    @Test func matchesPillowPluginsWithImageCms() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-formats-pillow-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let references = try ColorReference.load(Self.pillowFiles.map { "Corpus/\($0.path)" }, into: directory)
        try #require(references.count == Self.pillowFiles.count)
        for (reference, file) in zip(references, Self.pillowFiles) {
            try Self.expect(decodeCorpus(file.path).bitmap, near: reference, maximum: file.maximum, "\(file.path) (Pillow)")
        }
    }

    /// The issue's bar: the same size, a mean difference of at most 1.5 per channel, and at
    /// most `maximum` anywhere.
    private static func expect(_ bitmap: Bitmap, near reference: ColorReference, maximum: Int, _ label: String) throws {
        let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: reference.pixels)))
        let expected = try Bitmap(width: reference.width, height: reference.height, pixels: raw)
        try #require(bitmap.width == expected.width && bitmap.height == expected.height,
                     "\(label): \(bitmap.width)x\(bitmap.height), reference \(expected.width)x\(expected.height)")
        let difference = PixelDifference(bitmap, expected)
        #expect(difference.mean <= 1.5, "\(label): mean difference \(difference.mean)")
        #expect(difference.maximum <= maximum, "\(label): maximum difference \(difference.maximum)")
    }

    /// HEIF's irot/imir are applied by libheif: the pixels come upright, at the displayed size.
    @Test func heifTransformsAreApplied() throws {
        for path in ["formats/coffee-irot.heic", "formats/coffee-irot-imir.heic"] {
            let data = try Corpus.data(path)
            let metadata = try HEIFDecoder().metadata(of: data)
            #expect(metadata.width == 400 && metadata.height == 600 && metadata.orientation == .up, "\(path)")
            let image = try HEIFDecoder().decode(data, options: DecodingOptions())
            #expect(image.bitmap.width == 400 && image.bitmap.height == 600, "\(path)")
        }
    }

    /// A small request decodes the file's thumbnail item (heif-enc -t 320: 320x212), as vips's
    /// `[thumbnail]` does, pixel for pixel; a request larger than it decodes the image.
    @Test func heifThumbnailItemServesSmallRequests() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-heif-thumbnail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let reference = try #require(ColorReference.load(["Corpus/formats/reference/coffee-thumbnail.heic.thumbnail.png"],
                                                         into: directory).first)
        let data = try Corpus.data("formats/coffee-thumbnail.heic")
        let small = try HEIFDecoder().decode(data, options: DecodingOptions(maxPixelSize: 256))
        #expect(small.metadata.width == 600 && small.metadata.height == 400)
        try #require(small.bitmap.width == 320 && small.bitmap.height == 212, "\(small.bitmap.width)x\(small.bitmap.height)")
        try Self.expect(small.bitmap, near: reference, maximum: 0, "thumbnail item (vips [thumbnail])")
        let large = try HEIFDecoder().decode(data, options: DecodingOptions(maxPixelSize: 400))
        #expect(large.bitmap.width == 600 && large.bitmap.height == 400)
    }

    /// Asked to use the embedded thumbnail (imgproxy's `enforce_thumbnail`), HEIF and AVIF
    /// files decode their thumbnail item as the image, pixel for pixel vips's `[thumbnail]`,
    /// whatever size was asked; the header decision and the metadata see the thumbnail's
    /// size. A file without one decodes in full.
    @Test func theEmbeddedThumbnailIsTheImageWhenAsked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-embedded-thumbnail-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var options = DecodingOptions(maxPixelSize: 500)
        options.usesEmbeddedThumbnail = true
        let cases: [(file: String, decoder: any ImageDecoding, width: Int, height: Int)] = [
            ("coffee-thumbnail.heic", HEIFDecoder(), 320, 212), ("coffee-thumbnail.avif", AVIFDecoder(), 160, 106),
        ]
        for (file, decoder, width, height) in cases {
            let reference = try #require(ColorReference.load(["Corpus/formats/reference/\(file).thumbnail.png"], into: directory).first)
            let data = try Corpus.data("formats/\(file)")
            #expect(try decoder.metadata(of: data).width == 600, "the file's own size without the option")
            var seen: [Int] = []
            let image = try decoder.decode(data, options: options) { metadata, _ in seen = [metadata.width, metadata.height] }
            #expect(seen == [width, height], "\(file): the header decision")
            #expect(image.metadata.width == width && image.metadata.height == height, "\(file)")
            try #require(image.bitmap.width == width && image.bitmap.height == height, "\(file): \(image.bitmap.width)x\(image.bitmap.height)")
            try Self.expect(image.bitmap, near: reference, maximum: 0, "\(file) (vips [thumbnail])")
            // Through the format-sniffing decoder, as the pipeline decodes.
            #expect(try ImageDecoder().decode(data, options: options).bitmap.width == width)
        }
        for file in ["coffee.heic", "coffee.avif"] {
            let image = try ImageDecoder().decode(Corpus.data("formats/\(file)"), options: options)
            #expect(image.bitmap.width == 600 && image.bitmap.height == 400, "\(file) has no thumbnail item")
        }
    }

    /// irot and imir become the orientation, applied only when asked (like EXIF's in JPEG).
    @Test func avifTransformsAreTheOrientation() throws {
        let cases: [(String, ExifOrientation)] = [
            ("formats/coffee.avif", .up), ("formats/coffee-irot1.avif", .left),
            ("formats/coffee-irot3-imir1.avif", .leftMirrored), ("formats/coffee-imir0.avif", .downMirrored),
        ]
        for (path, orientation) in cases {
            let data = try Corpus.data(path)
            let metadata = try AVIFDecoder().metadata(of: data)
            #expect(metadata.orientation == orientation, "\(path)")
            #expect(metadata.width == 600 && metadata.height == 400, "\(path): stored size")
            let stored = try AVIFDecoder().decode(data, options: DecodingOptions())
            #expect(stored.bitmap.width == 600)
        }
    }

    /// The P3 files come back near the sRGB photo they were made from (managed), and visibly
    /// off when kept as stored.
    @Test(arguments: ["formats/p3.heic", "formats/p3.avif", "formats/p3.jxl"])
    func wideGamutIsConverted(path: String) throws {
        let original = try ImageDecoder().decode(Corpus.data("skimage/coffee.png"), options: DecodingOptions()).bitmap
        let managed = try decodeCorpus(path).bitmap
        let stored = try decodeCorpus(path, options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap
        let managedDifference = PixelDifference(managed, original, ignoringAlpha: true).mean
        let storedDifference = PixelDifference(stored, original, ignoringAlpha: true).mean
        #expect(managedDifference < 4, "\(path): managed \(managedDifference)")
        #expect(storedDifference > managedDifference + 2, "\(path): stored \(storedDifference), managed \(managedDifference)")
    }

    @Test func headerLimitsAreCheckedBeforeDecoding() throws {
        let limits = DecodingLimits(maxPixelCount: 100_000)
        for path in ["formats/coffee.heic", "formats/coffee.avif", "formats/coffee.jxl"] {
            #expect(throws: ImageCodecError.pixelLimitExceeded(width: 600, height: 400, limit: 100_000), "\(path)") {
                try decodeCorpus(path, options: DecodingOptions(limits: limits))
            }
        }
    }

    /// Found by fuzzing: the thumbnail item retyped from hvc1 to iovl (overlay), whose box then
    /// reads as a 44097x29807 canvas behind the 600x400 the file declares. libheif checks an
    /// overlay's canvas only against its side limit, which a pixel limit of 100 million had
    /// raised to 100 million (the default limits; the decode then wrote out of bounds in libheif,
    /// a crash); now it is the declared longest side, and the file is a typed error.
    @Test func heifOverlayCanvasBeyondTheDeclaredSizeIsRefused() throws {
        var data = try Corpus.data("formats/coffee-thumbnail.heic")
        let items = try #require(data.range(of: Data("iinf".utf8)))
        let type = try #require(data.range(of: Data("hvc1".utf8), in: items.upperBound..<data.endIndex))
        data.replaceSubrange(type, with: Data("iovl".utf8))
        #expect(throws: ImageCodecError.self) { try HEIFDecoder().decode(data, options: DecodingOptions()) }
        do {
            _ = try HEIFDecoder().decode(data, options: DecodingOptions())
        } catch let ImageCodecError.corrupt(format, message) {
            #expect(format == .heif && message.contains("exceeds the maximum image size"), "\(message)")
        }
    }

    /// Cut short: a typed `corrupt` error of the right format. Zeroed in the middle: the same,
    /// or (HEVC and AV1 decoders conceal damage in the compressed data) an image of the
    /// header's size; never a crash.
    @Test(arguments: ["truncated-coffee.heic", "zeroed-coffee.heic", "truncated-coffee.avif", "zeroed-coffee.avif",
                      "truncated-coffee.jxl", "zeroed-coffee.jxl"])
    func brokenFilesGiveTypedErrors(name: String) throws {
        let data = try Corpus.data("formats/broken/\(name)")
        let format = try #require(ImageFormat(sniffing: data))
        do {
            let image = try ImageDecoder().decode(data, options: DecodingOptions())
            let concealed = name.hasPrefix("zeroed-") && image.bitmap.width == 600 && image.bitmap.height == 400
            #expect(concealed, "\(name) decoded to \(image.bitmap.width)x\(image.bitmap.height)")
        } catch let error as ImageCodecError {
            guard case let .corrupt(errorFormat, message) = error else {
                Issue.record("\(name): \(error)")
                return
            }
            #expect(errorFormat == format && !message.isEmpty, "\(name): \(error)")
        }
    }

    /// The thumbnail rule on an iPhone's header values (4032x3024 with a 320x240 item).
    @Test func heifThumbnailRule() {
        var info = lc_heif_info()
        info.width = 4032
        info.height = 3024
        info.thumbnail_width = 320
        info.thumbnail_height = 240
        #expect(HEIFDecoder.usesThumbnail(info, maxPixelSize: 256))
        #expect(!HEIFDecoder.usesThumbnail(info, maxPixelSize: 512))
        #expect(!HEIFDecoder.usesThumbnail(info, maxPixelSize: nil))
        info.thumbnail_height = 320  // not the image's shape
        #expect(!HEIFDecoder.usesThumbnail(info, maxPixelSize: 256))
    }

    @Test func avifEncodeRoundTrips() throws {
        let bitmap = try gradientBitmap(width: 96, height: 64, alpha: true)
        let data = try ImageEncoder().encode(bitmap, as: .avif(quality: 90))
        #expect(ImageFormat(sniffing: data) == .avif)
        let decoded = try ImageDecoder().decode(data, options: DecodingOptions())
        #expect(decoded.bitmap.width == 96 && decoded.bitmap.height == 64)
        let difference = PixelDifference(decoded.bitmap, bitmap)
        #expect(difference.mean < 3, "mean \(difference.mean)")
        #expect(decoded.bitmap.hasTransparency)
        #expect(throws: ImageCodecError.self) { try ImageEncoder().encode(bitmap, as: .avif(quality: 101)) }
    }
}

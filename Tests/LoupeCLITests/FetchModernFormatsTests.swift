import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing

/// `loupe fetch` on HEIF, AVIF and JPEG XL files (Corpus/formats, from Scripts/fetch-corpus.sh)
/// and `--format avif`.
@Suite final class FetchModernFormatsTests: Sendable {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder.created() }

    deinit { folder.remove() }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus/formats")

    @Test func heifAVIFAndJPEGXLThumbnailsWrittenAsAVIF() async throws {
        let sources = ["p3.heic", "coffee-irot1.avif", "tux-alpha.jxl"].map { Self.corpus.appendingPathComponent($0).path }
        let run = try await LoupeRun.run(["fetch", "--json", "--no-cache", "--thumbnail", "128", "--format", "avif",
                                          "--out", folder.path("out")] + sources, home: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        let objects = try run.objects()
        try #require(objects.count == 3)
        #expect(objects.map { $0["format"] as? String } == ["heif", "avif", "jxl"])
        // irot 1 turns the 600x400 AVIF upright: 400x600 as displayed.
        #expect(objects[1]["width"] as? Int == 400 && objects[1]["height"] as? Int == 600)
        for object in objects {
            let path = try #require(object["path"] as? String)
            #expect(path.hasSuffix(".avif"))
            let written = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)), options: DecodingOptions())
            #expect(written.metadata.format == .avif)
            #expect(max(written.bitmap.width, written.bitmap.height) == 128, "\(path)")
        }
    }

    /// Without `--format`, HEIF and JPEG XL (read, not written) are written as the codecs' policy
    /// says: JPEG, or PNG when the image has transparency; AVIF stays AVIF.
    @Test func heifAndJPEGXLWithoutAFormatFollowThePolicy() async throws {
        let expected: [(file: String, format: ImageFormat)] = [
            ("p3.heic", .jpeg), ("tux-alpha.heic", .png), ("coffee.jxl", .jpeg), ("tux-alpha.jxl", .png), ("p3.avif", .avif),
        ]
        let sources = expected.map { Self.corpus.appendingPathComponent($0.file).path }
        let run = try await LoupeRun.run(["fetch", "--json", "--no-cache", "--thumbnail", "96", "--out", folder.path("policy")] + sources,
                                         home: folder.url)
        #expect(run.status == 0, "\(run.standardError)")
        let objects = try run.objects()
        try #require(objects.count == expected.count)
        for ((file, format), object) in zip(expected, objects) {
            let path = try #require(object["path"] as? String, "\(file)")
            #expect(path.hasSuffix("." + format.fileExtension), "\(file): \(path)")
            let written = try ImageDecoder().decode(Data(contentsOf: URL(fileURLWithPath: path)), options: DecodingOptions())
            #expect(written.metadata.format == format, "\(file)")
            let source = try ImageDecoder().decode(Data(contentsOf: Self.corpus.appendingPathComponent(file)), options: DecodingOptions())
            #expect(ImageFormat.defaultOutput(forSource: source.metadata.format, transparent: source.bitmap.hasTransparency) == format,
                    "\(file)")
            #expect(written.bitmap.hasTransparency == (format == .png), "\(file)")
        }
    }

    /// A phone photo (Display P3 profile, EXIF orientation 6, a GPS position) made into
    /// thumbnails in every output format: Pillow (with pillow-avif-plugin) finds no EXIF, no GPS,
    /// no XMP and no profile in any, and the pixels upright (portrait) — the orientation was
    /// applied, so stripping it loses nothing.
    @Test func thumbnailsCarryNoMetadata() async throws {
        let root = Self.corpus.deletingLastPathComponent().deletingLastPathComponent()
        let source = root.appendingPathComponent("Corpus/color/exif-gps.jpg").path
        var written: [String] = []
        for format in ["jpeg", "png", "webp", "avif"] {
            let run = try await LoupeRun.run(["fetch", "--json", "--no-cache", "--thumbnail", "128", "--format", format,
                                              "--out", folder.path("out-\(format)"), source], home: folder.url)
            #expect(run.status == 0, "\(run.standardError)")
            written.append(try #require(try run.objects().first?["path"] as? String))
        }
        let script = """
            import json, sys
            from PIL import Image
            import pillow_avif
            for path in sys.argv[1:]:
                with Image.open(path) as image:
                    exif = image.getexif()
                    print(json.dumps({"size": list(image.size), "exif": len(exif), "gps": len(exif.get_ifd(0x8825)),
                                      "keys": sorted(k for k in image.info if k in ("exif", "icc_profile", "xmp", "XML:com.adobe.xmp"))}))
            """
        let python = root.appendingPathComponent(".venv-conformance/bin/python").path
        let check = try await LoupeRun.runTool([python, "-c", script] + written, home: folder.url)
        #expect(check.status == 0, "\(check.standardError)")
        let reports = try check.objects()
        try #require(reports.count == written.count, "\(check.standardOutput)")
        for (path, report) in zip(written, reports) {
            #expect(report["size"] as? [Int] == [85, 128], "\(path): \(report)")
            #expect(report["exif"] as? Int == 0 && report["gps"] as? Int == 0, "\(path): \(report)")
            #expect((report["keys"] as? [String])?.isEmpty == true, "\(path): \(report)")
        }
        // The bytes too: no EXIF header, no GPS tag name, no ICC marker anywhere.
        for path in written {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            for marker in ["Exif", "ICC_PROFILE", "Loupe test camera"] {
                #expect(data.range(of: Data(marker.utf8)) == nil, "\(path) contains \(marker)")
            }
        }
    }
}

import Foundation
import LoupeCodecs
import LoupeTestSupport
import Testing

/// `loupe fetch` on HEIF, AVIF and JPEG XL files (Corpus/formats, from Scripts/fetch-corpus.sh)
/// and `--format avif`.
@Suite final class FetchModernFormatsTests: Sendable {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder() }

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
}

import Foundation
import LoupeCodecs
import LoupeLoading
import LoupeServer
import LoupeTestSupport
import Testing

/// TIFF, BMP and ICO sources, and JPEG XL, HEIC, TIFF, BMP and ICO results, through the
/// service's routes as imgproxy URLs name them.
@Suite struct LegacyFormatServiceTests {
    static func settings(root: TemporaryFolder) throws -> ServerSettings {
        var settings = testSettings()
        settings.localRoot = try RootedFileSystem(root: root.url.path)
        return settings
    }

    /// A TIFF, a BMP and an ICO source (from the corpus) resized and written as PNG: 200, the
    /// size `rs:fit:100:100` gives, the pixels of the source's own decode.
    @Test(arguments: [("legacy/video-001.tiff", "x.tiff"), ("legacy/yellow_rose-small.bmp", "x.bmp"), ("legacy/tux-bmp.ico", "x.ico"),
                      ("legacy/coffee-orientation6.tiff", "o.tiff")])
    func legacySourcesAreRead(corpus: String, name: String) async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        let source = try Corpus.data(corpus)
        try source.write(to: URL(fileURLWithPath: root.path(name)))
        let decoded = try ImageDecoder().decode(source, options: DecodingOptions(appliesOrientation: true)).bitmap
        let scale = min(100.0 / Double(decoded.width), 100.0 / Double(decoded.height), 1)
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            let answer = try await server.request("/insecure/rs:fit:100:100/plain/local:///\(name)@png")
            #expect(answer.status == 200, "\(corpus): \(String(decoding: answer.body, as: UTF8.self))")
            #expect(answer.header("Content-Type") == "image/png")
            let result = try ImageDecoder().decode(answer.body).bitmap
            #expect(result.width == Int((Double(decoded.width) * scale).rounded()), "\(corpus): width \(result.width)")
            #expect(result.height == Int((Double(decoded.height) * scale).rounded()), "\(corpus): height \(result.height)")
        }
    }

    /// Without a format, a TIFF, BMP or ICO source is answered as JPEG (PNG with alpha), as
    /// imgproxy answers a source outside its preferred formats.
    @Test func legacySourcesDefaultToJPEGOrPNG() async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        try Corpus.data("legacy/video-001.tiff").write(to: URL(fileURLWithPath: root.path("x.tiff")))
        try Corpus.data("legacy/tux-png.ico").write(to: URL(fileURLWithPath: root.path("x.ico")))
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            let tiff = try await server.request("/insecure/rs:fit:50:50/plain/local:///x.tiff")
            #expect(tiff.status == 200 && tiff.header("Content-Type") == "image/jpeg")
            let ico = try await server.request("/insecure/rs:fit:50:50/plain/local:///x.ico")
            #expect(ico.status == 200 && ico.header("Content-Type") == "image/png")
        }
    }

    /// Each new output format by extension and by `format:`, with its Content-Type; the result
    /// is that format, at the size asked.
    @Test(arguments: [("jxl", "image/jxl", ImageFormat.jxl), ("heic", "image/heif", .heif), ("tiff", "image/tiff", .tiff),
                      ("bmp", "image/bmp", .bmp), ("ico", "image/x-icon", .ico)])
    func newOutputFormats(name: String, contentType: String, format: ImageFormat) async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        try Corpus.data("skimage/coffee.png").write(to: URL(fileURLWithPath: root.path("c.png")))
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            for path in ["/insecure/rs:fit:120:120/plain/local:///c.png@\(name)", "/insecure/rs:fit:120:120/f:\(name)/plain/local:///c.png"] {
                let answer = try await server.request(path, headers: [("Accept", "image/avif,image/webp,image/jxl,*/*")])
                #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                #expect(answer.header("Content-Type") == contentType, "\(path)")
                #expect(ImageFormat(sniffing: answer.body) == format, "\(path)")
                let metadata = try ImageDecoder().metadata(of: answer.body)
                #expect(metadata.width == 120 && metadata.height == 80, "\(path): \(metadata.width)x\(metadata.height)")
            }
        }
    }

    /// `Accept` never turns a result into JPEG XL, HEIC, TIFF, BMP or ICO.
    @Test func acceptDoesNotNegotiateTheNewFormats() async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        try Corpus.data("skimage/coffee.png").write(to: URL(fileURLWithPath: root.path("c.png")))
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            let answer = try await server.request("/insecure/rs:fit:60:60/plain/local:///c.png",
                                                  headers: [("Accept", "image/jxl,image/heic,image/heif,image/tiff,image/bmp,image/x-icon")])
            #expect(answer.status == 200 && answer.header("Content-Type") == "image/png")
        }
    }

    /// An icon larger than 256 pixels is scaled to fit, as imgproxy does.
    @Test func largeIconsAreScaledTo256() async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        try Corpus.data("skimage/coffee.png").write(to: URL(fileURLWithPath: root.path("c.png")))
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            let answer = try await server.request("/insecure/plain/local:///c.png@ico")
            #expect(answer.status == 200)
            let metadata = try ImageDecoder().metadata(of: answer.body)
            #expect(metadata.format == .ico && metadata.width == 256 && metadata.height == 171, "\(metadata.width)x\(metadata.height)")
        }
    }

    /// Sources whose header declares more pixels than allowed: 422, refused from the header.
    @Test func legacyBombsAre422() async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        try LegacyBombs.tiff(width: 100_000, height: 100_000).write(to: URL(fileURLWithPath: root.path("b.tiff")))
        try LegacyBombs.bmp(width: 50_000, height: 50_000).write(to: URL(fileURLWithPath: root.path("b.bmp")))
        try LegacyBombs.ico(width: 30_000, height: 30_000).write(to: URL(fileURLWithPath: root.path("b.ico")))
        try await RoutedServer.with(try Self.settings(root: root)) { server in
            for name in ["b.tiff", "b.bmp", "b.ico"] {
                let answer = try await server.request("/insecure/rs:fit:50:50/plain/local:///\(name)@png")
                #expect(answer.status == 422, "\(name)")
                #expect(answer.json["kind"] as? String == "tooManyPixels", "\(name): \(answer.json)")
            }
        }
    }
}

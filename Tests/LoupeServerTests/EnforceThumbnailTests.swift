import Foundation
import Logging
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's `enforce_thumbnail`/`eth` and `IMGPROXY_ENFORCE_THUMBNAIL`: a HEIF or AVIF
/// source's embedded thumbnail item is the image, its size the one every option sees.
@Suite struct EnforceThumbnailTests {
    /// The corpus's coffee photo (600×400) as HEIC with a 320×212 thumbnail item, as AVIF with a
    /// 160×106 one, and as a JPEG, which has none Loupe reads.
    static func settings(enforcesThumbnail: Bool = false) throws -> (ServerSettings, TemporaryFolder) {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        for file in ["coffee-thumbnail.heic", "coffee-thumbnail.avif", "coffee.heic"] {
            try Corpus.data("formats/\(file)").write(to: folder.url.appendingPathComponent(file))
        }
        try Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg").write(to: folder.url.appendingPathComponent("photo.jpg"))
        var settings = try LocalSourceTests.settings(root: folder.url.path)
        settings.enforcesThumbnail = enforcesThumbnail
        return (settings, folder)
    }

    @Test func theThumbnailItemIsTheImageWhenTheURLSaysSo() async throws {
        let (settings, folder) = try Self.settings()
        defer { folder.remove() }
        try await RoutedServer.with(settings) { server in
            // Without the option a box larger than the thumbnail decodes the image itself.
            try await server.expectImage(insecurePath("rs:fit:500:500", "local:///coffee-thumbnail.heic", extension: "png"),
                                         format: .png, width: 500, height: 333)
            // With it, the thumbnail is the source: not enlarged, and no geometry gives it whole.
            try await server.expectImage(insecurePath("eth:1/rs:fit:500:500", "local:///coffee-thumbnail.heic", extension: "png"),
                                         format: .png, width: 320, height: 212)
            try await server.expectImage(insecurePath("enforce_thumbnail:true", "local:///coffee-thumbnail.avif", extension: "png"),
                                         format: .png, width: 160, height: 106)
            // A crop's coordinates are the thumbnail's.
            try await server.expectImage(insecurePath("eth:1/c:100:50:nowe", "local:///coffee-thumbnail.avif", extension: "png"),
                                         format: .png, width: 100, height: 50)
            // Sources without a thumbnail item are decoded as usual.
            try await server.expectImage(insecurePath("eth:1", "local:///coffee.heic", extension: "png"), format: .png, width: 600, height: 400)
            try await server.expectImage(insecurePath("eth:1/ar:0", "local:///photo.jpg", extension: "png"), format: .png, width: 640, height: 428)
            #expect(try await server.request(insecurePath("eth:maybe", "local:///coffee-thumbnail.heic")).status == 400)
        }
    }

    @Test func theSettingDecidesWhenTheURLIsSilent() async throws {
        let (settings, folder) = try Self.settings(enforcesThumbnail: true)
        defer { folder.remove() }
        try await RoutedServer.with(settings) { server in
            try await server.expectImage(insecurePath("", "local:///coffee-thumbnail.heic", extension: "png"), format: .png, width: 320, height: 212)
            try await server.expectImage(insecurePath("eth:0", "local:///coffee-thumbnail.heic", extension: "png"), format: .png, width: 600, height: 400)
        }
        #expect(try ServerSettings(flags: [:], environment: ["IMGPROXY_ENFORCE_THUMBNAIL": "true"]).enforcesThumbnail)
        #expect(try ServerSettings(flags: [:], environment: [:]).enforcesThumbnail == false)
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["IMGPROXY_ENFORCE_THUMBNAIL": "on"]) }
    }

    /// Other pixels, another result; the same pixels however they were asked for.
    @Test func resultKeysFollowTheResult() throws {
        func key(_ options: String, enforcesThumbnail: Bool = false) throws -> String {
            var settings = ServerSettings()
            settings.enforcesThumbnail = enforcesThumbnail
            let service = try ImageService(settings: settings, metrics: ServerMetrics(), logger: Logger(label: "test"))
            var parsed = try ImgproxyURL(path: "/insecure/\(options)/plain/local:///a.heic").options
            try service.check(&parsed)
            return parsed.resultKey
        }
        #expect(try key("w:100") == key("eth:0/w:100"))
        #expect(try key("eth:1/w:100") != key("w:100"))
        #expect(try key("w:100", enforcesThumbnail: true) == key("eth:1/w:100"))
        #expect(try key("eth:0/w:100", enforcesThumbnail: true) == key("w:100"))
    }
}

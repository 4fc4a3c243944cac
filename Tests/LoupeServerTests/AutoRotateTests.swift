import Foundation
import Logging
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's `auto_rotate`/`ar` and `IMGPROXY_AUTO_ROTATE`: a source turned upright by its EXIF
/// orientation, or kept as stored, in the geometry and the pixels alike.
@Suite struct AutoRotateTests {
    /// gdk-pixbuf's test photo: stored 640×428, EXIF orientation 6 (upright 428×640).
    static func settings(autoRotates: Bool = true) throws -> (ServerSettings, TemporaryFolder) {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        try Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg").write(to: folder.url.appendingPathComponent("turned.jpg"))
        var settings = try LocalSourceTests.settings(root: folder.url.path)
        settings.autoRotates = autoRotates
        return (settings, folder)
    }

    @Test func theOrientationTurnsTheSourceUnlessTheURLSaysZero() async throws {
        let (settings, folder) = try Self.settings()
        defer { folder.remove() }
        try await RoutedServer.with(settings) { server in
            // Upright: 428×640, fit into 100×100 → 67×100.
            try await server.expectImage(insecurePath("rs:fit:100:100", "local:///turned.jpg", extension: "png"), format: .png, width: 67, height: 100)
            try await server.expectImage(insecurePath("ar:1/rs:fit:100:100", "local:///turned.jpg", extension: "png"), format: .png, width: 67, height: 100)
            // As stored: 640×428 → 100×67, and a fill's box is cut from the stored frame.
            try await server.expectImage(insecurePath("ar:0/rs:fit:100:100", "local:///turned.jpg", extension: "png"), format: .png, width: 100, height: 67)
            try await server.expectImage(insecurePath("auto_rotate:false/rs:fill:120:40", "local:///turned.jpg", extension: "png"),
                                         format: .png, width: 120, height: 40)
            // No geometry at all: the whole image, as stored.
            try await server.expectImage(insecurePath("ar:0", "local:///turned.jpg", extension: "png"), format: .png, width: 640, height: 428)
            try await server.expectImage(insecurePath("", "local:///turned.jpg", extension: "png"), format: .png, width: 428, height: 640)
            let bad = try await server.request(insecurePath("ar:maybe", "local:///turned.jpg"))
            #expect(bad.status == 400)
        }
    }

    @Test func theSettingDecidesWhenTheURLIsSilent() async throws {
        let (settings, folder) = try Self.settings(autoRotates: false)
        defer { folder.remove() }
        try await RoutedServer.with(settings) { server in
            try await server.expectImage(insecurePath("rs:fit:100:100", "local:///turned.jpg", extension: "png"), format: .png, width: 100, height: 67)
            try await server.expectImage(insecurePath("ar:1/rs:fit:100:100", "local:///turned.jpg", extension: "png"), format: .png, width: 67, height: 100)
        }
    }

    /// The same pixels whichever way "upright" was said, and the stored ones apart from them: the
    /// result key follows what is made, not how the URL spelled it.
    @Test func resultKeysFollowTheResult() throws {
        let service = try ImageService(settings: ServerSettings(), metrics: ServerMetrics(), logger: Logger(label: "test"))
        func key(_ options: String) throws -> String {
            var parsed = try ImgproxyURL(path: "/insecure/\(options)/plain/local:///turned.jpg").options
            try service.check(&parsed)
            return parsed.resultKey
        }
        #expect(try key("w:100") == key("ar:1/w:100"))
        #expect(try key("ar:0/w:100") != key("w:100"))
        var turnedOff = ServerSettings()
        turnedOff.autoRotates = false
        let offService = try ImageService(settings: turnedOff, metrics: ServerMetrics(), logger: Logger(label: "test"))
        var silent = try ImgproxyURL(path: "/insecure/w:100/plain/local:///turned.jpg").options
        try offService.check(&silent)
        #expect(silent.resultKey == (try key("ar:0/w:100")))
    }

    @Test func theEnvironmentVariableSetsIt() throws {
        let settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_AUTO_ROTATE": "false"])
        #expect(settings.autoRotates == false)
        #expect(try ServerSettings(flags: [:], environment: [:]).autoRotates == true)
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["IMGPROXY_AUTO_ROTATE": "on"]) }
    }
}

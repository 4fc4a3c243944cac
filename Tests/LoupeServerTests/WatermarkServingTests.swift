import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// `watermark`/`wm` through the service's routes: each position, the opacity (URL ×
/// setting), tiling and scale checked on the result's pixels; the watermark from a file, a
/// loopback URL and imgproxy's variables; bad arguments refused naming the option.
@Suite struct WatermarkServingTests {
    /// A white 100×80 PNG source (lossless, so pixels can be compared exactly).
    static func whitePNG() throws -> Data {
        try ImageEncoder().encode(try Bitmap(width: 100, height: 80, pixels: [UInt8](repeating: 255, count: 100 * 80 * 4)), as: .png)
    }

    /// An opaque 10×10 mark of one colour, as PNG.
    static func markPNG(red: UInt8 = 255, green: UInt8 = 0, blue: UInt8 = 0) throws -> Data {
        try ImageEncoder().encode(try Bitmap(width: 10, height: 10, pixels: (0..<100).flatMap { _ in [red, green, blue, 255] }), as: .png)
    }

    static func pixels(_ data: Data) throws -> Bitmap {
        try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true)).bitmap
    }

    /// Serves the white source, with the mark written to a file as `--watermark-path`.
    static func withServer(opacity: Double = 1, mark: Data? = nil,
                           _ body: @escaping @Sendable (RoutedServer, String) async throws -> Void) async throws {
        let folder = try TemporaryFolder.created()
        let path = folder.path("mark.png")
        try (mark ?? markPNG()).write(to: URL(fileURLWithPath: path))
        let source = try whitePNG()
        try await OriginServer.run(handler: { _ in .ok(source) }) { origin in
            var settings = testSettings()
            settings.watermark = .file(path: path)
            settings.watermarkOpacity = opacity
            try await RoutedServer.with(settings) { server in
                try await server.server.reloadWatermark()
                try await body(server, origin.url("/white.png").absoluteString)
            }
        }
    }

    /// Each position puts the mark's red where imgproxy puts it, and leaves the rest white.
    @Test func eachPositionOnPixels() async throws {
        // (position, a pixel inside the mark, a pixel outside it)
        let cases: [(String, (Int, Int), (Int, Int))] = [
            ("ce", (50, 40), (40, 40)), ("no", (50, 0), (50, 15)), ("so", (50, 79), (50, 60)),
            ("ea", (99, 40), (85, 40)), ("we", (0, 40), (15, 40)), ("noea", (99, 0), (0, 0)),
            ("nowe", (0, 0), (99, 0)), ("soea", (99, 79), (0, 79)), ("sowe", (0, 79), (99, 79)),
        ]
        try await Self.withServer { server, source in
            for (position, inside, outside) in cases {
                let answer = try await server.request(insecurePath("wm:1:\(position)", source, extension: "png"))
                #expect(answer.status == 200, "\(position)")
                let image = try Self.pixels(answer.body)
                #expect(image.pixel(x: inside.0, y: inside.1) == (255, 0, 0, 255), "\(position) inside")
                #expect(image.pixel(x: outside.0, y: outside.1) == (255, 255, 255, 255), "\(position) outside")
            }
        }
    }

    /// URL opacity 0.5 × setting 0.5: the mark at alpha 0.25 over white; opacity 0: no mark.
    @Test func opacityIsTheURLsTimesTheSettings() async throws {
        try await Self.withServer(opacity: 0.5) { server, source in
            let image = try Self.pixels(try await server.request(insecurePath("wm:0.5:ce", source, extension: "png")).body)
            let pixel = image.pixel(x: 50, y: 40)
            #expect(pixel.r == 255 && pixel.a == 255)
            #expect(abs(Int(pixel.g) - 191) <= 1 && abs(Int(pixel.b) - 191) <= 1)
            let none = try Self.pixels(try await server.request(insecurePath("wm:0:ce", source, extension: "png")).body)
            #expect(none.pixel(x: 50, y: 40) == (255, 255, 255, 255))
        }
    }

    /// `re` tiles with the offsets as spacing; a scale resizes the mark relative to the result;
    /// offsets move it; and it is drawn after resizing (on the result's pixels).
    @Test func tilingScaleOffsetsAndOrder() async throws {
        try await Self.withServer { server, source in
            let tiled = try Self.pixels(try await server.request(insecurePath("wm:1:re:10:10", source, extension: "png")).body)
            for (x, y) in [(5, 5), (25, 5), (85, 65), (45, 45)] { #expect(tiled.pixel(x: x, y: y) == (255, 0, 0, 255), "tile at \(x),\(y)") }
            for (x, y) in [(0, 0), (17, 17), (99, 79)] { #expect(tiled.pixel(x: x, y: y) == (255, 255, 255, 255), "gap at \(x),\(y)") }

            let scaled = try Self.pixels(try await server.request(insecurePath("wm:1:nowe:0:0:0.5", source, extension: "png")).body)
            #expect(scaled.pixel(x: 38, y: 38) == (255, 0, 0, 255))
            #expect(scaled.pixel(x: 42, y: 42) == (255, 255, 255, 255))

            let moved = try Self.pixels(try await server.request(insecurePath("wm:1:soea:5:7", source, extension: "png")).body)
            #expect(moved.pixel(x: 90, y: 68) == (255, 0, 0, 255))
            #expect(moved.pixel(x: 96, y: 75) == (255, 255, 255, 255))

            // Resized to 50×40 first, then the 10×10 mark in the result's corner.
            let resized = try Self.pixels(try await server.request(insecurePath("rs:fit:50:50/wm:1:soea", source, extension: "png")).body)
            #expect((resized.width, resized.height) == (50, 40))
            #expect(resized.pixel(x: 40, y: 30) == (255, 0, 0, 255))
            #expect(resized.pixel(x: 39, y: 29) == (255, 255, 255, 255))
        }
    }

    /// Bad arguments: 400 naming the option; the option without a watermark set draws nothing.
    @Test func badArgumentsAre400AndNoWatermarkDrawsNothing() async throws {
        try await Self.withServer { server, source in
            for options in ["wm:2", "wm:-0.1", "wm:x", "wm:1:top", "wm:1:ce:a", "wm:1:ce:0:b", "wm:1:ce:0:0:0", "wm:1:ce:0:0:-1",
                            "watermark:1:ce:0:0:1:a:b:c"] {
                let answer = try await server.request(insecurePath(options, source, extension: "png"))
                #expect(answer.status == 400, "\(options)")
                #expect(String(decoding: answer.body, as: UTF8.self).contains(options.hasPrefix("wm") ? "'wm'" : "'watermark'"), "\(options)")
            }
            // A scale making the mark over four times the result's area: refused, not allocated.
            #expect(try await server.request(insecurePath("wm:1:ce:0:0:1000", source, extension: "png")).status == 422)
        }
        let source = try Self.whitePNG()
        try await OriginServer.run(handler: { _ in .ok(source) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let answer = try await server.request(insecurePath("wm:1:ce", origin.url("/w.png").absoluteString, extension: "png"))
                #expect(answer.status == 200)
                #expect(try Self.pixels(answer.body).pixel(x: 50, y: 40) == (255, 255, 255, 255))
            }
        }
    }

    /// `--watermark-url` from a loopback origin (through the guard, which the test settings
    /// let 127.0.0.1 through), and a URL that fails is an error naming the setting.
    @Test func watermarkFromAURL() async throws {
        let source = try Self.whitePNG(), mark = try Self.markPNG(red: 0, green: 0, blue: 255)
        try await OriginServer.run(handler: { request in
            request.path == "/mark.png" ? .ok(mark) : request.path == "/white.png" ? .ok(source) : .status(404)
        }) { origin in
            var settings = testSettings()
            settings.watermark = .url(origin.url("/mark.png"))
            try await RoutedServer.with(settings) { server in
                try await server.server.reloadWatermark()
                let image = try Self.pixels(try await server.request(insecurePath("wm:1:ce", origin.url("/white.png").absoluteString,
                                                                                  extension: "png")).body)
                #expect(image.pixel(x: 50, y: 40) == (0, 0, 255, 255))
            }
            settings.watermark = .url(origin.url("/missing.png"))
            try await RoutedServer.with(settings) { server in
                let error = await #expect(throws: SettingsError.self) { try await server.server.reloadWatermark() }
                #expect(error?.description.hasPrefix("--watermark-url '\(origin.url("/missing.png").absoluteString)'") == true)
            }
        }
    }

    /// imgproxy's variables: `IMGPROXY_WATERMARK_PATH` and `_OPACITY` served end to end,
    /// `_DATA` (base64) over a path, and a bad opacity stops start-up naming its variable.
    @Test func imgproxyVariables() async throws {
        let folder = try TemporaryFolder.created()
        let path = folder.path("mark.png")
        try Self.markPNG().write(to: URL(fileURLWithPath: path))
        var settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_WATERMARK_PATH": path, "IMGPROXY_WATERMARK_OPACITY": "0.5"])
        #expect(settings.watermark == .file(path: path))
        #expect(settings.watermarkOpacity == 0.5)
        let data = try Self.markPNG(red: 0, green: 255, blue: 0)
        let fromData = try ServerSettings(flags: [:], environment: ["IMGPROXY_WATERMARK_PATH": path,
                                                                    "IMGPROXY_WATERMARK_DATA": data.base64EncodedString()])
        #expect(fromData.watermark == .data(data))
        #expect(throws: SettingsError("IMGPROXY_WATERMARK_OPACITY '2' is not a number in 0...1")) {
            try ServerSettings(flags: [:], environment: ["IMGPROXY_WATERMARK_OPACITY": "2"])
        }
        #expect(throws: SettingsError("IMGPROXY_WATERMARK_DATA is not base64")) {
            try ServerSettings(flags: [:], environment: ["IMGPROXY_WATERMARK_DATA": "%%%"])
        }
        #expect(!ImgproxyEnvironment.ignored(in: ["IMGPROXY_WATERMARK_DATA": "AAAA", "IMGPROXY_WATERMARK_PATH": path])
            .contains { $0.name.hasPrefix("IMGPROXY_WATERMARK") })

        let source = try Self.whitePNG()
        try await OriginServer.run(handler: { _ in .ok(source) }) { origin in
            let base = testSettings()
            settings.allowsUnsigned = base.allowsUnsigned
            settings.addressPolicy = base.addressPolicy
            try await RoutedServer.with(settings) { server in
                try await server.server.reloadWatermark()
                let image = try Self.pixels(try await server.request(insecurePath("wm:0.5:ce", origin.url("/w.png").absoluteString,
                                                                                  extension: "png")).body)
                let pixel = image.pixel(x: 50, y: 40)
                #expect(pixel.r == 255 && abs(Int(pixel.g) - 191) <= 1)
            }
        }
    }

    /// A missing file stops loading with a line naming the setting; a reload that fails keeps
    /// the loaded mark, and the result key changes with the mark.
    @Test func failedReloadKeepsTheOldMark() async throws {
        let folder = try TemporaryFolder.created()
        let path = folder.path("mark.png")
        try Self.markPNG().write(to: URL(fileURLWithPath: path))
        let source = try Self.whitePNG()
        try await OriginServer.run(handler: { _ in .ok(source) }) { origin in
            var settings = testSettings()
            settings.watermark = .file(path: folder.path("absent.png"))
            try await RoutedServer.with(settings) { server in
                _ = await #expect(throws: SettingsError("--watermark-path '\(folder.path("absent.png"))' cannot be read")) {
                    try await server.server.reloadWatermark()
                }
            }
            settings.watermark = .file(path: path)
            try await RoutedServer.with(settings) { server in
                try await server.server.reloadWatermark()
                let url = insecurePath("wm:1:ce", origin.url("/w.png").absoluteString, extension: "png")
                #expect(try Self.pixels(try await server.request(url).body).pixel(x: 50, y: 40) == (255, 0, 0, 255))
                try Data("not an image".utf8).write(to: URL(fileURLWithPath: path))
                await #expect(throws: SettingsError.self) { try await server.server.reloadWatermark() }
                #expect(try Self.pixels(try await server.request(url).body).pixel(x: 50, y: 40) == (255, 0, 0, 255))
                try Self.markPNG(red: 0, green: 0, blue: 255).write(to: URL(fileURLWithPath: path))
                try await server.server.reloadWatermark()
                #expect(try Self.pixels(try await server.request(url).body).pixel(x: 50, y: 40) == (0, 0, 255, 255))
            }
        }
    }

    /// The server's opacity is part of the result key: a restart with another
    /// `--watermark-opacity` over the same disk result cache makes a new result.
    @Test func theSettingsOpacityIsPartOfTheResultKey() async throws {
        let folder = try TemporaryFolder.created()
        let path = folder.path("mark.png")
        try Self.markPNG().write(to: URL(fileURLWithPath: path))
        let source = try Self.whitePNG()
        try await OriginServer.run(handler: { _ in .ok(source) }) { origin in
            let url = insecurePath("wm:1:ce", origin.url("/w.png").absoluteString, extension: "png")
            var settings = testSettings()
            settings.watermark = .file(path: path)
            settings.cacheDirectory = URL(fileURLWithPath: folder.path("cache"))
            for (opacity, green) in [(1.0, 0), (0.5, 128), (1.0, 0)] {
                settings.watermarkOpacity = opacity
                try await RoutedServer.with(settings) { server in
                    try await server.server.reloadWatermark()
                    let pixel = try Self.pixels(try await server.request(url).body).pixel(x: 50, y: 40)
                    #expect(pixel.r == 255 && abs(Int(pixel.g) - green) <= 1, "opacity \(opacity)")
                }
            }
        }
    }
}

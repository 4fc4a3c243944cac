import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The fallback image (imgproxy's `IMGPROXY_FALLBACK_IMAGE_*`) through the service's routes:
/// from base64, a file and a URL, processed with the failed request's own options and answered
/// with the configured status and lifetime; what it does not stand in for (a bad option, a
/// signature) still answered as the error; a fallback image that cannot serve stops start-up.
@Suite struct FallbackImageTests {
    /// An opaque 40×20 PNG of one colour (lossless, so the answer's pixels say whose they are).
    static func fallbackPNG(red: UInt8 = 0, green: UInt8 = 0, blue: UInt8 = 255) throws -> Data {
        try ImageEncoder().encode(try Bitmap(width: 40, height: 20, pixels: (0..<800).flatMap { _ in [red, green, blue, 255] }), as: .png)
    }

    /// An origin with one good source (`/ok.png`, white 100×80), text at `/text`, the fallback
    /// image at `/fallback.png`, and 404 for everything else.
    static func withOrigin(_ body: @Sendable (OriginServer) async throws -> Void) async throws {
        let source = try WatermarkServingTests.whitePNG(), fallback = try fallbackPNG()
        try await OriginServer.run(handler: { request in
            switch request.path {
            case "/ok.png": .ok(source, contentType: "image/png")
            case "/fallback.png": .ok(fallback, contentType: "image/png")
            case "/text": .ok(Data("not an image".utf8), contentType: "text/plain")
            default: .status(404)
            }
        }) { origin in try await body(origin) }
    }

    /// `--fallback-image-data`: a missing source and one that is no image answer the fallback
    /// image resized by the URL's own options, 200 (imgproxy's default status) with a result's
    /// lifetime and no validators; a good source is unaffected, and a bad option, a forged
    /// signature and a forbidden source are still their errors.
    /// With imgproxy 4's validators (the service asks the origin itself), a source the origin
    /// does not have is stood in for alike, with the origin's own status, and without validators.
    @Test func theFallbackStandsInWhenTheOriginIsAskedForValidators() async throws {
        try await Self.withOrigin { origin in
            var settings = testSettings()
            settings.fallbackImage = .data(try Self.fallbackPNG())
            settings.fallbackImageStatus = 0
            settings.etagMode = .origin
            settings.lastModifiedMode = .origin
            try await RoutedServer.with(settings) { server in
                try await server.server.loadFallbackImage()
                let answer = try await server.request(insecurePath("rs:fit:20:20", origin.url("/missing.png").absoluteString, extension: "png"),
                                                      headers: [("If-None-Match", "\"x\"")])
                #expect(answer.status == 404)
                #expect(try WatermarkServingTests.pixels(answer.body).pixel(x: 10, y: 5) == (0, 0, 255, 255))
                #expect(answer.header("ETag") == nil && answer.header("Last-Modified") == nil)
                #expect(origin.requests(for: "/missing.png").first?.header("If-None-Match") == "\"x\"")
            }
        }
    }

    @Test func dataFallbackStandsInForSourcesThatCannotBeLoaded() async throws {
        try await Self.withOrigin { origin in
            var settings = testSettings()
            settings.fallbackImage = .data(try Self.fallbackPNG())
            try await RoutedServer.with(settings) { server in
                try await server.server.loadFallbackImage()
                for source in ["/missing.png", "/text"] {
                    let answer = try await server.request(insecurePath("rs:fit:20:20", origin.url(source).absoluteString, extension: "png"))
                    #expect(answer.status == 200, "\(source)")
                    let image = try WatermarkServingTests.pixels(answer.body)
                    #expect((image.width, image.height) == (20, 10), "\(source)")
                    #expect(image.pixel(x: 10, y: 5) == (0, 0, 255, 255), "\(source)")
                    #expect(answer.header("Cache-Control") == "public, max-age=\(ServerSettings().timeToLive)")
                    #expect(answer.header("ETag") == nil && answer.header("Last-Modified") == nil)
                }
                let good = try await server.request(insecurePath("rs:fit:20:20", origin.url("/ok.png").absoluteString, extension: "png"))
                #expect(try WatermarkServingTests.pixels(good.body).pixel(x: 10, y: 5) == (255, 255, 255, 255))
                #expect(good.header("ETag") != nil)
                let badOption = try await server.request(insecurePath("w:99999", origin.url("/missing.png").absoluteString))
                #expect(badOption.status == 400)
                #expect(badOption.json["kind"] as? String == "badOption")
                let forged = try await server.request(insecurePath("w:10", origin.url("/missing.png").absoluteString)
                    .replacingOccurrences(of: "/insecure/", with: "/wrongsig/"))
                #expect(forged.status == 403)
                let forbidden = try await server.request(insecurePath("w:10", "ftp://127.0.0.1/x.png"))
                #expect(forbidden.status == 403)
                #expect(forbidden.json["kind"] as? String == "forbiddenSource")
            }
        }
    }

    /// `--fallback-image-path` with `--fallback-image-http-code` and `--fallback-image-ttl`:
    /// the status and max-age as set; with code 0 the failure's own status (the origin's 404),
    /// and without a TTL an error status carries no `Cache-Control`, as imgproxy's.
    @Test func pathFallbackWithItsStatusAndLifetime() async throws {
        let folder = try TemporaryFolder.created()
        let path = folder.path("fallback.png")
        try Self.fallbackPNG(red: 0, green: 255, blue: 0).write(to: URL(fileURLWithPath: path))
        try await Self.withOrigin { origin in
            let missing = insecurePath("w:20", origin.url("/missing.png").absoluteString, extension: "png")
            var settings = testSettings()
            settings.fallbackImage = .file(path: path)
            settings.fallbackImageStatus = 503
            settings.fallbackImageTimeToLive = 60
            try await RoutedServer.with(settings) { server in
                try await server.server.loadFallbackImage()
                let answer = try await server.request(missing)
                #expect(answer.status == 503)
                #expect(answer.header("Cache-Control") == "public, max-age=60")
                let image = try WatermarkServingTests.pixels(answer.body)
                #expect((image.width, image.height) == (20, 10))
                #expect(image.pixel(x: 10, y: 5) == (0, 255, 0, 255))
                // The URL's expiry only shortens the fallback's lifetime.
                let expires = Int(Date().timeIntervalSince1970) + 30
                let short = try await server.request(insecurePath("w:20/exp:\(expires)", origin.url("/missing.png").absoluteString, extension: "png"))
                let maxAge = short.header("Cache-Control").flatMap { Int($0.split(separator: "=").last ?? "") } ?? -1
                #expect(short.status == 503)
                #expect(maxAge > 0 && maxAge <= 30, "\(short.header("Cache-Control") ?? "")")
            }
            settings.fallbackImageStatus = 0
            settings.fallbackImageTimeToLive = 0
            try await RoutedServer.with(settings) { server in
                try await server.server.loadFallbackImage()
                let answer = try await server.request(missing)
                #expect(answer.status == 404)
                #expect(answer.header("Cache-Control") == nil)
                #expect(answer.header("Content-Type") == "image/png")
            }
        }
    }

    /// A local source that is missing or not a file is a failed load to imgproxy too: the
    /// fallback image answers it, with the failure's status when the code is 0; a path the
    /// root refuses stays a 403, and without a fallback image a missing file stays a 404.
    @Test func missingLocalSourcesAnswerTheFallbackImage() async throws {
        let folder = try TemporaryFolder.created()
        try FileManager.default.createDirectory(atPath: folder.path("folder"), withIntermediateDirectories: true)
        var settings = try LocalSourceTests.settings(root: folder.url.path)
        try await RoutedServer.with(settings) { server in
            let answer = try await server.request(insecurePath("w:20", "local:///missing.png", extension: "png"))
            #expect(answer.status == 404)
            #expect(answer.json["kind"] as? String == "sourceNotFound")
        }
        settings.fallbackImage = .data(try Self.fallbackPNG())
        settings.fallbackImageStatus = 0
        try await RoutedServer.with(settings) { server in
            try await server.server.loadFallbackImage()
            for source in ["local:///missing.png", "local:///folder"] {
                let answer = try await server.request(insecurePath("w:20", source, extension: "png"))
                #expect(answer.status == 404, "\(source)")
                let image = try WatermarkServingTests.pixels(answer.body)
                #expect((image.width, image.height) == (20, 10), "\(source)")
                #expect(image.pixel(x: 10, y: 5) == (0, 0, 255, 255), "\(source)")
            }
            // Raw answers the fallback too, not the missing file.
            let raw = try await server.request(insecurePath("raw:1", "local:///missing.png", extension: "png"))
            #expect(raw.status == 404 && raw.header("Content-Type") == "image/png")
            let refused = try await server.request(insecurePath("w:20", "local:///../etc/passwd", extension: "png"))
            #expect(refused.status == 403)
        }
    }

    /// `--fallback-image-url`: loaded once at start-up through the sources' loader (the origin
    /// asked once for any number of fallback answers); a URL that fails stops start-up with an
    /// error naming the setting and imgproxy's variable.
    @Test func urlFallbackIsLoadedOnceAndAFailingOneStopsStartUp() async throws {
        try await Self.withOrigin { origin in
            var settings = testSettings()
            settings.fallbackImage = .url(origin.url("/fallback.png"))
            try await RoutedServer.with(settings) { server in
                try await server.server.loadFallbackImage()
                for width in [10, 20, 30] {
                    let answer = try await server.request(insecurePath("w:\(width)", origin.url("/missing-\(width).png").absoluteString, extension: "png"))
                    #expect(answer.status == 200)
                    #expect(try WatermarkServingTests.pixels(answer.body).width == width)
                }
                #expect(origin.requestCount(for: "/fallback.png") == 1)
            }
            settings.fallbackImage = .url(origin.url("/absent.png"))
            try await RoutedServer.with(settings) { server in
                let error = await #expect(throws: SettingsError.self) { try await server.server.loadFallbackImage() }
                #expect(error?.description.hasPrefix("--fallback-image-url (IMGPROXY_FALLBACK_IMAGE_URL) '\(origin.url("/absent.png").absoluteString)'") == true)
            }
            settings.fallbackImage = .url(origin.url("/text"))
            try await RoutedServer.with(settings) { server in
                let error = await #expect(throws: SettingsError.self) { try await server.server.loadFallbackImage() }
                #expect(error?.description.contains("the fallback image cannot be decoded") == true)
            }
        }
    }

    /// imgproxy's variables: DATA over PATH over URL, the code and TTL read, a status that cannot
    /// carry an image and bad base64 refused naming what was set.
    @Test func imgproxyVariables() throws {
        let base64 = try Self.fallbackPNG().base64EncodedString()
        let settings = try ServerSettings(flags: [:], environment: [
            "IMGPROXY_FALLBACK_IMAGE_DATA": base64, "IMGPROXY_FALLBACK_IMAGE_PATH": "/nowhere.png",
            "IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "0", "IMGPROXY_FALLBACK_IMAGE_TTL": "30",
        ])
        #expect(settings.fallbackImage == .data(try Self.fallbackPNG()))
        #expect(settings.fallbackImageStatus == 0)
        #expect(settings.fallbackImageTimeToLive == 30)
        let path = try ServerSettings(flags: ["fallback-image-url": "http://127.0.0.1/f.png"], environment: ["IMGPROXY_FALLBACK_IMAGE_PATH": "/f.png"])
        #expect(path.fallbackImage == .file(path: "/f.png"))
        #expect(ServerSettings().fallbackImageStatus == 200)
        #expect(ImgproxyEnvironment.ignored(in: ["IMGPROXY_FALLBACK_IMAGE_TTL": "30"]).isEmpty)
        let noBody = #expect(throws: SettingsError.self) {
            try ServerSettings(flags: [:], environment: ["IMGPROXY_FALLBACK_IMAGE_HTTP_CODE": "304"])
        }
        #expect(noBody?.description.contains("--fallback-image-http-code 304") == true)
        let badData = #expect(throws: SettingsError.self) {
            try ServerSettings(flags: [:], environment: ["IMGPROXY_FALLBACK_IMAGE_DATA": "%%%"])
        }
        #expect(badData?.description.hasPrefix("IMGPROXY_FALLBACK_IMAGE_DATA") == true)
    }
}

import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeProcessing
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's filters and output options through the service's routes: `sharpen`,
/// `pixelate`, `quality`/`format_quality` (and `--format-quality`), `max_bytes`,
/// `keep_copyright`, `strip_color_profile`. Each test names the imgproxy rule it checks.
@Suite struct OutputOptionsTests {
    static func bitmap(_ data: Data) throws -> Bitmap {
        try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true)).firstFrame.bitmap
    }

    /// A vertical edge between two greys, 40×12.
    static func edgePNG() throws -> Data {
        var pixels: [UInt8] = []
        for _ in 0..<12 { for x in 0..<40 { pixels += x < 20 ? [90, 90, 90, 255] : [170, 170, 170, 255] } }
        return try ImageEncoder().encode(Bitmap(width: 40, height: 12, pixels: pixels), as: .png)
    }

    /// Sources by path: an edge, noise (which compresses badly: what `max_bytes` has to work
    /// on) and a photo-like gradient.
    static func origin<T: Sendable>(_ body: (OriginServer) async throws -> T) async throws -> T {
        let files: [String: Data] = [
            "/edge.png": try edgePNG(), "/noise.png": try TestImage.noisePNG(width: 96, height: 96),
            "/small-noise.png": try TestImage.noisePNG(width: 10, height: 7), "/photo.jpg": try TestImage.jpeg(width: 200, height: 100, seed: 4),
        ]
        return try await OriginServer.run(handler: { request in files[request.path].map { OriginResponse.ok($0) } ?? .status(404) }, body)
    }

    /// imgproxy: `sharpen:%sigma` sharpens the result (0: none); `pixelate:%size` turns it
    /// into blocks of that size; both after the resize.
    @Test func sharpenAndPixelateFilterTheResult() async throws {
        try await Self.origin { origin in
            try await RoutedServer.with(testSettings()) { server in
                let edge = origin.url("/edge.png").absoluteString
                let plain = try await server.request(insecurePath("", edge, extension: "png"))
                let sharp = try await server.request(insecurePath("sh:1", edge, extension: "png"))
                let none = try await server.request(insecurePath("sharpen:0", edge, extension: "png"))
                #expect(plain.status == 200 && sharp.status == 200 && none.status == 200)
                let before = try Self.bitmap(plain.body), after = try Self.bitmap(sharp.body)
                #expect(after.pixel(x: 19, y: 6).r < before.pixel(x: 19, y: 6).r)
                #expect(after.pixel(x: 20, y: 6).r > before.pixel(x: 20, y: 6).r)
                #expect(after.pixel(x: 2, y: 6) == before.pixel(x: 2, y: 6))
                #expect(none.body == plain.body)

                let noise = origin.url("/small-noise.png").absoluteString
                let source = try Self.bitmap(try await server.request(insecurePath("", noise, extension: "png")).body)
                let pixelated = try await server.request(insecurePath("pix:4", noise, extension: "png"))
                #expect(pixelated.status == 200)
                let blocks = try Self.bitmap(pixelated.body)
                #expect(blocks == (try ImageProcessors.Pixelate(size: 4).process(source)))
                #expect((0..<4).allSatisfy { y in (0..<4).allSatisfy { x in blocks.pixel(x: x, y: y) == blocks.pixel(x: 0, y: 0) } })
                #expect(blocks.pixel(x: 4, y: 0) != blocks.pixel(x: 3, y: 0))
                // After the resize: 10×7 fitted into 5 wide, pixelated in 2s.
                let resized = try Self.bitmap(try await server.request(insecurePath("w:5/pixelate:2", noise, extension: "png")).body)
                #expect(resized.width == 5)
                #expect(resized.pixel(x: 0, y: 0) == resized.pixel(x: 1, y: 1))

                for (options, argument) in [("sh:-1", "-1"), ("sh:abc", "abc"), ("pix:-3", "-3"), ("pix:1.5", "1.5"), ("sh:1:2", "sh")] {
                    let bad = try await server.request(insecurePath(options, edge))
                    #expect(bad.status == 400, "\(options)")
                    #expect(bad.json["kind"] as? String == "badOption")
                    #expect((bad.json["message"] as? String)?.contains(argument) == true, "\(options): \(bad.json)")
                }
            }
        }
    }

    /// imgproxy: a format's quality is the URL's `quality`, else the URL's `format_quality`
    /// for that format, else the server's `IMGPROXY_FORMAT_QUALITY` (here `--format-quality`),
    /// else the server's quality. Same quality, same bytes: compared with explicit `q:`.
    @Test func formatQualityPrecedence() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            var settings = testSettings()
            settings = try Self.settings(settings, formatQuality: "jpeg=55,webp=35")
            let explicit = try await RoutedServer.with(testSettings()) { server in
                var bodies: [String: Data] = [:]
                for (q, ext) in [(55, "jpg"), (35, "webp"), (70, "jpg"), (20, "jpg"), (20, "webp"), (63, "avif"), (80, "jpg")] {
                    let answer = try await server.request(insecurePath("q:\(q)", photo, extension: ext))
                    #expect(answer.status == 200)
                    bodies["\(q)\(ext)"] = answer.body
                }
                // The URL's format_quality, on a server with no per-format setting.
                #expect(try await server.request(insecurePath("fq:jpeg:20:webp:35", photo, extension: "jpg")).body == bodies["20jpg"])
                #expect(try await server.request(insecurePath("fq:jpg:20:webp:35", photo, extension: "webp")).body == bodies["35webp"])
                // quality wins over format_quality; fq:…:0 is "not set".
                #expect(try await server.request(insecurePath("fq:jpeg:20/q:70", photo, extension: "jpg")).body == bodies["70jpg"])
                #expect(try await server.request(insecurePath("fq:jpeg:0", photo, extension: "jpg")).body == bodies["80jpg"])
                return bodies
            }
            #expect(explicit["55jpg"] != explicit["70jpg"])
            try await RoutedServer.with(settings) { server in
                #expect(try await server.request(insecurePath("", photo, extension: "jpg")).body == explicit["55jpg"])
                #expect(try await server.request(insecurePath("", photo, extension: "webp")).body == explicit["35webp"])
                // AVIF is not in the setting: it keeps imgproxy's default, 63.
                #expect(try await server.request(insecurePath("", photo, extension: "avif")).body == explicit["63avif"])
                #expect(try await server.request(insecurePath("fq:webp:20", photo, extension: "webp")).body == explicit["20webp"])
                #expect(try await server.request(insecurePath("q:70", photo, extension: "jpg")).body == explicit["70jpg"])
                for options in ["fq:jpeg", "fq:jpeg:101", "fq:bmpx:50", "fq:jpeg:50:webp"] {
                    let bad = try await server.request(insecurePath(options, photo))
                    #expect(bad.status == 400 && bad.json["kind"] as? String == "badOption", "\(options)")
                }
            }
        }
    }

    static func settings(_ base: ServerSettings, formatQuality: String) throws -> ServerSettings {
        var settings = base
        settings.formatQuality = try ServerSettings(flags: ["format-quality": formatQuality], environment: [:]).formatQuality
        return settings
    }

    /// imgproxy's `max_bytes` search, written out from its description: encode at the quality;
    /// if the result is over the limit and the quality above 10, try again at the quality
    /// scaled by 0.25 (over 3 times the limit), 0.5 (over 1.5 times) or 0.75, rounded, at least
    /// one lower and at least 1.
    static func expectedQuality(start: Int, limit: Int, size: (Int) async throws -> Int) async throws -> Int {
        var quality = start
        for _ in 0..<100 {
            let bytes = try await size(quality)
            if bytes <= limit || quality <= 10 { return quality }
            let ratio = Double(bytes) / Double(limit)
            let scale = ratio > 3 ? 0.25 : (ratio > 1.5 ? 0.5 : 0.75)
            quality = max(1, min(quality - 1, Int((Double(quality) * scale).rounded())))
        }
        throw TestFailure("the quality search did not end")
    }

    /// imgproxy: `max_bytes:%bytes` lowers the quality of JPEG, WebP and AVIF until the result
    /// fits (down to quality 10); a generous limit keeps the requested quality; PNG is never
    /// touched by it.
    @Test(arguments: ["jpg", "webp", "avif"])
    func maxBytesLowersTheQualityUntilTheResultFits(ext: String) async throws {
        try await Self.origin { origin in
            let noise = origin.url("/noise.png").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                func body(_ options: String) async throws -> Data {
                    let answer = try await server.request(insecurePath(options, noise, extension: ext))
                    #expect(answer.status == 200, "\(options)")
                    return answer.body
                }
                let full = try await body("q:90")
                // A limit within reach: noise hardly compresses, in WebP least of all.
                let limit = try await body("q:40").count
                let fitted = try await body("q:90/mb:\(limit)")
                #expect(fitted.count <= limit, "\(ext): \(fitted.count) > \(limit)")
                let quality = try await Self.expectedQuality(start: 90, limit: limit) { try await body("q:\($0)").count }
                #expect(quality < 90)
                let atQuality = try await body("q:\(quality)")
                #expect(fitted == atQuality, "\(ext) fitted at \(quality)")
                // A generous bound keeps the requested quality's exact bytes.
                #expect(try await body("q:90/max_bytes:\(full.count)") == full)
                #expect(try await body("q:90/mb:0") == full)
                // Beyond reach (1 byte): quality 10 or below is answered as it is, over the limit.
                let floor = try await body("q:90/mb:1")
                #expect(floor.count > 1)
                let lowest = try await Self.expectedQuality(start: 90, limit: 1) { try await body("q:\($0)").count }
                let atLowest = try await body("q:\(lowest)")
                #expect(lowest <= 10 && floor == atLowest)
            }
        }
    }

    @Test func maxBytesLeavesPNGAloneAndRefusesBadArguments() async throws {
        try await Self.origin { origin in
            let noise = origin.url("/noise.png").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                let png = try await server.request(insecurePath("", noise, extension: "png"))
                #expect(try await server.request(insecurePath("mb:100", noise, extension: "png")).body == png.body)
                for options in ["mb:-1", "mb:abc", "mb:1:2", "max_bytes:99999999999999999999"] {
                    let bad = try await server.request(insecurePath(options, noise))
                    #expect(bad.status == 400 && bad.json["kind"] as? String == "badOption", "\(options)")
                }
            }
        }
    }

    /// imgproxy: `strip_metadata`, `keep_copyright` and `strip_color_profile` (all on by
    /// default there). Results here never carry metadata and are always converted to sRGB
    /// without a profile: the settings that ask for exactly that are accepted, the ones that
    /// would keep something are refused by name rather than ignored.
    @Test func metadataOptionsAcceptWhatResultsAreAndRefuseTheRest() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                let plain = try await server.request(insecurePath("w:50", photo, extension: "jpg"))
                for options in ["w:50/sm:1", "w:50/kcr:0", "w:50/keep_copyright:false", "w:50/scp:1", "w:50/strip_color_profile:t"] {
                    let answer = try await server.request(insecurePath(options, photo, extension: "jpg"))
                    #expect(answer.status == 200, "\(options)")
                    #expect(answer.body == plain.body, "\(options)")
                }
                for (options, name) in [("kcr:1", "keep_copyright"), ("scp:0", "strip_color_profile"), ("kcr:maybe", "kcr")] {
                    let answer = try await server.request(insecurePath(options, photo))
                    #expect(answer.status == 400, "\(options)")
                    #expect((answer.json["message"] as? String)?.contains(name) == true, "\(answer.json)")
                }
            }
        }
    }
}

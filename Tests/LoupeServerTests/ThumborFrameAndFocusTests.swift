import Foundation
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// thumbor's `extract_focal()` and `frame(url)` through the service: a nested thumbor URL's crop
/// becomes a focal point on the image under it (the same pixels as `focal()` with that box);
/// a nine-patch pads and frames the image as thumbor's `_nine_patch` does, and a frame from a
/// source the allowed sources refuse is a 400, as thumbor's `frame` test expects.
@Suite struct ThumborFrameAndFocusTests {
    @Test func extractFocalCentresOnTheNestedURLsCrop() async throws {
        let nginx = try NginxServer.start(files: ["photo.jpg": try TestImage.jpeg(width: 300, height: 200, seed: 43)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.jpg").absoluteString
        let encoded = try #require(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
        var settings = testSettings()
        settings.thumborAllowsUnsafe = true
        try await RoutedServer.with(settings) { server in
            let focal = try await server.request("/unsafe/100x100/filters:focal(200x20:280x100):format(png)/\(source)")
            let plain = try await server.request("/unsafe/100x100/filters:format(png)/\(source)")
            #expect(focal.status == 200)
            #expect(focal.body != plain.body, "the box must move the cut for the test to show anything")
            // thumbor's documented form (the host of the thumbor that made the crop, the image
            // percent-encoded), the image plain, and the crop two thumbor URLs down.
            for nested in ["thumbor.example:8888/unsafe/200x20:280x100/\(encoded)", "https://thumbor.example/unsafe/200x20:280x100/\(source)",
                           "thumbor.example/unsafe/50x50/thumbor.example/unsafe/200x20:280x100/\(source)"] {
                let extracted = try await server.request("/unsafe/100x100/filters:extract_focal():format(png)/\(nested)")
                #expect(extracted.status == 200, "\(nested)")
                #expect(extracted.body == focal.body, "\(nested)")
            }
        }
    }

    @Test func aNinePatchPadsAndFramesTheImage() async throws {
        let ninePatch = try Self.ninePatch()
        let nginx = try NginxServer.start(files: ["photo.png": try TestImage.png(width: 40, height: 30, seed: 44),
                                                  "frame.png": try ImageEncoder().encode(ninePatch, as: .png)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.png").absoluteString, frame = nginx.url("/frame.png").absoluteString
        var settings = testSettings()
        settings.thumborAllowsUnsafe = true
        try await RoutedServer.with(settings) { server in
            let answer = try await server.request("/unsafe/filters:frame(\(frame)):format(png)/\(source)")
            try #require(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let framed = try ImageDecoder().decode(answer.body).bitmap
            let photo = try ImageDecoder().decode(try TestImage.png(width: 40, height: 30, seed: 44)).bitmap
            // The padding the bottom and right marks give: 2 on each side.
            #expect((framed.width, framed.height) == (44, 34))
            // The fixed corners are the nine-patch's red; the stretched edges too, along the whole side.
            for (x, y) in [(0, 0), (43, 0), (0, 33), (43, 33), (22, 0), (0, 17), (22, 33), (43, 17)] {
                let pixel = framed.pixel(x: x, y: y)
                #expect((pixel.r, pixel.g, pixel.b, pixel.a) == (255, 0, 0, 255), "(\(x), \(y))")
            }
            // Inside the ring the nine-patch is transparent: the image shows, moved by the padding.
            for (x, y) in [(20, 15), (5, 5), (34, 24)] {
                let pixel = framed.pixel(x: x + 2, y: y + 2), original = photo.pixel(x: x, y: y)
                #expect((pixel.r, pixel.g, pixel.b) == (original.r, original.g, original.b), "(\(x), \(y))")
            }
        }
        var restricted = Self.restrictedSettings(allowing: source)
        restricted.thumborAllowsUnsafe = true
        try await RoutedServer.with(restricted) { server in
            let refused = try await server.request("/unsafe/filters:frame(\(frame))/\(source)")
            #expect(refused.status == 400)
            #expect(String(decoding: refused.body, as: UTF8.self).contains("frame"))
        }
    }

    private static func restrictedSettings(allowing prefix: String) -> ServerSettings {
        var settings = testSettings()
        settings.sources = (try? SourcePolicy(allowedPrefixes: [prefix])) ?? settings.sources
        return settings
    }

    /// A 12×12 nine-patch: the middle four columns and rows stretch (top and left marks), the
    /// content sits two pixels in from each side (bottom and right marks), and inside the
    /// border a red ring three pixels wide around a transparent middle.
    static func ninePatch() throws -> Bitmap {
        var pixels = [UInt8](repeating: 0, count: 12 * 12 * 4)
        func set(_ x: Int, _ y: Int, _ rgba: (UInt8, UInt8, UInt8, UInt8)) {
            let offset = (y * 12 + x) * 4
            (pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]) = rgba
        }
        for index in 4...7 {
            set(index, 0, (0, 0, 0, 255))
            set(0, index, (0, 0, 0, 255))
        }
        for index in 3...8 {
            set(index, 11, (0, 0, 0, 255))
            set(11, index, (0, 0, 0, 255))
        }
        for y in 1...10 {
            for x in 1...10 where x <= 3 || x >= 8 || y <= 3 || y >= 8 {
                set(x, y, (255, 0, 0, 255))
            }
        }
        return try Bitmap(width: 12, height: 12, pixels: pixels)
    }
}

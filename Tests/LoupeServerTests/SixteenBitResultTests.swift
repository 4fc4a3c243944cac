import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import Testing

/// imgproxy's `preserve_hdr` (its processing/colorspace_test.go and flatten_test.go): with
/// `ph:1`, or `--preserve-hdr` when the URL does not say, a 16-bit source's PNG result keeps 16
/// bits per channel (RGB16, Grey16 while it stays grey) through resize, crop, padding,
/// background and watermark; its JPEG is 8-bit; without it every result is 8-bit, as before.
/// The sources are 16-bit PNGs made here (the codecs' encoder), with samples no 8-bit path can
/// give back (not multiples of 257); each result's depth and colour type read from its IHDR and
/// its samples decoded at 16 bits.
@Suite struct SixteenBitResultTests {
    /// One colour, (1000, 30001, 50003), over 200×100 pixels.
    static func flat() throws -> Data {
        let samples = [UInt16]((0..<200 * 100).flatMap { _ in [1000, 30001, 50003, 65535] as [UInt16] })
        return try deepPNG(width: 200, height: 100, samples, grey: false)
    }

    /// A grey ramp from left to right, alpha falling from top to bottom.
    static func greyRamp() throws -> Data {
        let samples = (0..<160 * 80).flatMap { index -> [UInt16] in
            let x = index % 160, y = index / 160
            let grey = UInt16(x * 409 + 11)
            return [grey, grey, grey, UInt16(65535 - y * 800)]
        }
        return try deepPNG(width: 160, height: 80, samples, grey: true)
    }

    static func deepPNG(width: Int, height: Int, _ samples: [UInt16], grey: Bool) throws -> Data {
        try ImageEncoder(embedsSRGBProfile: false, keepsGrey: grey, keepsDeepSamples: true)
            .encode(try Bitmap(width: width, height: height, deepSamples: samples), as: .png)
    }

    static func withServer(_ settings: ServerSettings = testSettings(),
                           _ body: @escaping @Sendable (RoutedServer, (String) -> String) async throws -> Void) async throws {
        try await GreyResultTests.withServer(files: ["/flat.png": try flat(), "/ramp.png": try greyRamp()], settings, body)
    }

    static func image(_ server: RoutedServer, _ options: String, _ source: String, _ format: ImageFormat) async throws -> Data {
        try await GreyResultTests.image(server, options, source, format)
    }

    /// The result's 16-bit samples (nil for an 8-bit file).
    static func samples(_ png: Data) throws -> [UInt16]? {
        var options = DecodingOptions()
        options.keepsDeepSamples = true
        return try ImageDecoder().decode(png, options: options).bitmap.deepSamples
    }

    @Test func preserveHDRKeepsSixteenBitsInPNG() async throws {
        try await Self.withServer { server, url async throws in
            let fill = "rs:fill:100:100/el:1"
            let deep = try await Self.image(server, fill + "/ph:1", url("/flat.png"), .png)
            #expect(GreyResultTests.pngHeader(deep) == [16, 2])
            let samples = try #require(try Self.samples(deep))
            #expect(samples.count == 100 * 100 * 4)
            // The source's colour to the unit: an 8-bit path gives multiples of 257.
            #expect(Array(samples[(50 * 100 + 50) * 4..<(50 * 100 + 51) * 4]) == [1000, 30001, 50003, 65535])
            #expect(try await Self.image(server, fill + "/preserve_hdr:true", url("/flat.png"), .png) == deep)
            // Without it, or with ph:0: 8 bits, the same result.
            let plain = try await Self.image(server, fill, url("/flat.png"), .png)
            #expect(GreyResultTests.pngHeader(plain) == [8, 2])
            #expect(try Self.samples(plain) == nil)
            #expect(try await Self.image(server, fill + "/ph:0", url("/flat.png"), .png) == plain)
            // JPEG has 8 bits: imgproxy's 16-bpp-png-jpeg-srgb.
            let jpeg = try ImageDecoder().decode(try await Self.image(server, fill + "/ph:1", url("/flat.png"), .jpeg))
            #expect(jpeg.bitmap.deepSamples == nil && !jpeg.metadata.isGrey)
            let bad = try await server.request(insecurePath("ph:maybe", url("/flat.png")))
            #expect(bad.status == 400)
            #expect((bad.json["message"] as? String)?.contains("'maybe' in 'ph'") == true, "\(bad.json)")
        }
    }

    /// A grey 16-bit source stays Grey16 (with alpha) through a resize and a crop; a grey
    /// background keeps it Grey16, a red one makes it RGB16 (imgproxy's flatten rows); padding
    /// keeps 16 bits; JPEG is 8-bit grey.
    @Test func greySourcesBackgroundsAndPadding() async throws {
        try await Self.withServer { server, url async throws in
            let ramp = url("/ramp.png")
            let resized = try await Self.image(server, "rs:fit:80:40/ph:1", ramp, .png)
            #expect(GreyResultTests.pngHeader(resized) == [16, 4])
            let samples = try #require(try Self.samples(resized))
            #expect(samples.contains { $0 % 257 != 0 }, "values an 8-bit path cannot give")
            // Left to right, the grey rises: the ramp's order survives the resize.
            #expect(samples[(20 * 80 + 10) * 4] < samples[(20 * 80 + 70) * 4])
            let grey = try await Self.image(server, "rs:fill:60:60/el:1/pd:10/bg:128:128:128/ph:1", ramp, .png)
            #expect(GreyResultTests.pngHeader(grey) == [16, 0])
            let red = try await Self.image(server, "rs:fill:60:60/el:1/pd:10/bg:255:0:0/ph:1", ramp, .png)
            #expect(GreyResultTests.pngHeader(red) == [16, 2])
            let redSamples = try #require(try Self.samples(red))
            // The padding is the background, to the unit: 80×80 with 10 pixels around.
            #expect(Array(redSamples[0..<4]) == [65535, 0, 0, 65535])
            #expect(try ImageDecoder().metadata(of: try await Self.image(server, "rs:fill:60:60/ph:1", ramp, .jpeg)).isGrey)
        }
    }

    /// `--preserve-hdr` (`IMGPROXY_PRESERVE_HDR`) decides when the URL does not; `ph:0`
    /// overrides it (imgproxy's option-false-overrides-config-true), and the two results are
    /// apart in the result cache.
    @Test func settingDecidesWhenTheURLDoesNot() async throws {
        var settings = testSettings()
        settings.preservesHDR = true
        try await Self.withServer(settings) { server, url async throws in
            let fill = "rs:fill:100:100/el:1"
            #expect(GreyResultTests.pngHeader(try await Self.image(server, fill, url("/flat.png"), .png)) == [16, 2])
            #expect(GreyResultTests.pngHeader(try await Self.image(server, fill + "/ph:0", url("/flat.png"), .png)) == [8, 2])
            #expect(GreyResultTests.pngHeader(try await Self.image(server, fill, url("/flat.png"), .png)) == [16, 2])
        }
    }

    /// A watermark over a 16-bit source keeps 16 bits: a coloured 8-bit mark on the grey ramp
    /// gives RGB16 (imgproxy's 16-bpp-grayscale-wm-8-bpp-rgb16).
    @Test func watermarkKeepsSixteenBits() async throws {
        var settings = testSettings()
        let mark = (0..<8 * 8).flatMap { _ in [200, 30, 40, 255] as [UInt8] }
        settings.watermark = .data(try ImageEncoder().encode(try Bitmap(width: 8, height: 8, pixels: mark), as: .png))
        try await Self.withServer(settings) { server, url async throws in
            let marked = try await Self.image(server, "rs:fill:100:100/el:1/wm:0.5:ce/ph:1", url("/ramp.png"), .png)
            #expect(GreyResultTests.pngHeader(marked) == [16, 6])
            let samples = try #require(try Self.samples(marked))
            // Under the mark's centre: red over grey, half and half.
            let centre = Array(samples[(50 * 100 + 50) * 4..<(50 * 100 + 51) * 4])
            #expect(centre[0] > centre[1] && centre[0] > centre[2])
        }
    }
}

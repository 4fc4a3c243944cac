import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy 4's default qualities through the service's routes: with nothing in the URL, WebP
/// is written at 79, AVIF at 63, JPEG XL at 77 (its `IMGPROXY_FORMAT_QUALITY` defaults) and
/// JPEG at 80 (`IMGPROXY_QUALITY`); a setting's pairs replace those defaults format by format.
/// Same quality, same bytes: each answer is compared with the one for an explicit `q:`.
@Suite struct DefaultQualityTests {
    static func origin<T: Sendable>(_ body: (OriginServer) async throws -> T) async throws -> T {
        let photo = try TestImage.jpeg(width: 120, height: 80, seed: 9)
        return try await OriginServer.run(handler: { _ in .ok(photo) }, body)
    }

    /// The body of `options` on `source` written as `format`.
    static func body(_ server: RoutedServer, _ options: String, _ source: String, _ format: ImageFormat) async throws -> Data {
        let answer = try await server.request(insecurePath(options, source, extension: format.rawValue))
        #expect(answer.status == 200, "\(options) \(format): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(ImageFormat(sniffing: answer.body) == format)
        return answer.body
    }

    /// Each lossy format's quality in `server`'s answers, found among the candidates by
    /// comparing with explicit `q:` answers; `nil` when none matches.
    static func qualities(_ server: RoutedServer, _ options: String, _ source: String,
                          candidates: [ImageFormat: [Int]]) async throws -> [ImageFormat: Int] {
        var found: [ImageFormat: Int] = [:]
        for (format, qualities) in candidates {
            let plain = try await body(server, options, source, format)
            for quality in qualities {
                let explicit = try await body(server, "q:\(quality)", source, format)
                if explicit == plain { found[format] = quality }
            }
        }
        return found
    }

    @Test func withNothingSetEachFormatGetsImgproxysDefault() async throws {
        try await Self.origin { origin in
            let source = origin.url("/p.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server async throws in
                let found = try await Self.qualities(server, "", source, candidates: [
                    .jpeg: [79, 80], .webp: [79, 80], .avif: [63, 80], .jxl: [77, 80],
                ])
                #expect(found == [.jpeg: 80, .webp: 79, .avif: 63, .jxl: 77])
                // The URL's format_quality for JPEG XL reaches its encoder.
                #expect(try await Self.body(server, "fq:jxl:50", source, .jxl) == (try await Self.body(server, "q:50", source, .jxl)))
            }
        }
    }

    /// `IMGPROXY_QUALITY` sets the formats without their own default; `IMGPROXY_FORMAT_QUALITY`
    /// replaces the defaults it names and keeps the others, as imgproxy merges it.
    @Test func settingsReplaceTheDefaultsTheyName() async throws {
        let read = try ServerSettings(flags: [:], environment: ["IMGPROXY_QUALITY": "60", "IMGPROXY_FORMAT_QUALITY": "webp=50"])
        #expect(read.defaultQuality == 60 && read.formatQuality == [.webp: 50, .avif: 63, .jxl: 77])
        #expect(try ServerSettings(flags: ["format-quality": "jpeg=70"], environment: [:]).formatQuality
                == [.jpeg: 70, .webp: 79, .avif: 63, .jxl: 77])
        var settings = testSettings()
        settings.defaultQuality = read.defaultQuality
        settings.formatQuality = read.formatQuality
        try await Self.origin { origin in
            let source = origin.url("/p.jpg").absoluteString
            try await RoutedServer.with(settings) { server async throws in
                let found = try await Self.qualities(server, "", source, candidates: [.jpeg: [60, 80], .webp: [50, 79, 60], .avif: [63, 60]])
                #expect(found == [.jpeg: 60, .webp: 50, .avif: 63])
            }
        }
    }
}

import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy 4's format switches through the service's routes, set as an imgproxy deployment sets
/// them (`IMGPROXY_AUTO_*`, `IMGPROXY_ENFORCE_*`): `AUTO` answers a format `Accept` lists when
/// the URL names none, `ENFORCE` even when it does; JPEG XL before AVIF before WebP, the first
/// two never for an animation; `Vary: Accept` on every image answer while any switch is on, on
/// none while all are off.
@Suite struct FormatNegotiationTests {
    static let every = "image/jxl,image/avif,image/webp,*/*"

    /// A still JPEG and a three-frame GIF, served by path.
    static func origin<T: Sendable>(_ body: (OriginServer) async throws -> T) async throws -> T {
        let frames = try [0, 1, 2].map { index in
            let pixels = (0..<24 * 16).flatMap { _ in [UInt8(index * 100), 80, UInt8(200 - index * 60), 255] }
            return ImageFrame(bitmap: try Bitmap(width: 24, height: 16, pixels: pixels), duration: .milliseconds(40))
        }
        let files: [String: Data] = [
            "/still.jpg": try TestImage.jpeg(width: 80, height: 40, seed: 6),
            "/moving.gif": try ImageEncoder().encode(frames, loopCount: 0, as: .gif),
        ]
        return try await OriginServer.run(handler: { request in files[request.path].map { OriginResponse.ok($0) } ?? .status(404) }, body)
    }

    /// Settings from imgproxy's variables over the tests' own.
    static func settings(_ environment: [String: String]) throws -> ServerSettings {
        let read = try ServerSettings(flags: [:], environment: environment)
        var settings = testSettings()
        settings.negotiatesWebP = read.negotiatesWebP
        settings.negotiatesAVIF = read.negotiatesAVIF
        settings.negotiatesJXL = read.negotiatesJXL
        settings.enforcesWebP = read.enforcesWebP
        settings.enforcesAVIF = read.enforcesAVIF
        settings.enforcesJXL = read.enforcesJXL
        return settings
    }

    /// The format of one answer and its `Vary` (`-` for none), as `webp Accept`.
    static func answer(_ server: RoutedServer, _ path: String, accept: String?) async throws -> String {
        let answer = try await server.request(path, headers: accept.map { [("Accept", $0)] } ?? [])
        #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
        let format = ImageFormat(sniffing: answer.body)
        #expect(answer.header("Content-Type") == format?.mimeType, "\(path)")
        return "\(format?.rawValue ?? "?") \(answer.header("Vary") ?? "-")"
    }

    /// The format of one answer.
    static func format(_ server: RoutedServer, _ path: String, accept: String?) async throws -> String {
        String(try await answer(server, path, accept: accept).prefix { $0 != " " })
    }

    /// Loupe's default negotiates WebP (imgproxy's does not) and so varies every answer;
    /// `IMGPROXY_AUTO_WEBP=false` is imgproxy's default: the source's format, no `Vary`.
    @Test func autoWebPIsLoupesDefaultAndFalseIsImgproxys() async throws {
        try await Self.origin { origin in
            let still = origin.url("/still.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server async throws in
                #expect(try await Self.answer(server, insecurePath("w:40", still), accept: Self.every) == "webp Accept")
                #expect(try await Self.answer(server, insecurePath("w:40", still), accept: "image/png,*/*") == "jpeg Accept")
                #expect(try await Self.answer(server, insecurePath("w:40", still, extension: "png"), accept: Self.every) == "png Accept")
            }
            try await RoutedServer.with(try Self.settings(["IMGPROXY_AUTO_WEBP": "false"])) { server async throws in
                #expect(try await Self.answer(server, insecurePath("w:40", still), accept: Self.every) == "jpeg -")
                #expect(try await Self.answer(server, insecurePath("w:40", still, extension: "png"), accept: Self.every) == "png -")
            }
        }
    }

    /// AUTO switches: the best format `Accept` lists among those on, JPEG XL first; an
    /// animation skips JPEG XL and AVIF (WebP keeps its frames); a named format is kept.
    @Test func autoSwitchesPickTheBestAcceptedFormat() async throws {
        try await Self.origin { origin in
            let still = origin.url("/still.jpg").absoluteString, moving = origin.url("/moving.gif").absoluteString
            let environment = ["IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_AUTO_AVIF": "true", "IMGPROXY_AUTO_JXL": "true"]
            try await RoutedServer.with(try Self.settings(environment)) { server async throws in
                #expect(try await Self.format(server, insecurePath("w:40", still), accept: Self.every) == "jxl")
                #expect(try await Self.format(server, insecurePath("w:40", still), accept: "image/avif,image/webp") == "avif")
                #expect(try await Self.format(server, insecurePath("w:40", still), accept: "image/webp") == "webp")
                #expect(try await Self.format(server, insecurePath("w:40", still, extension: "png"), accept: Self.every) == "png")
                let animation = try await server.request(insecurePath("", moving), headers: [("Accept", Self.every)])
                #expect(ImageFormat(sniffing: animation.body) == .webp)
                #expect(try ImageDecoder().decode(animation.body, options: DecodingOptions()).frames.count == 3)
                #expect(try await Self.format(server, insecurePath("", moving), accept: "image/jxl,image/avif") == "gif")
            }
        }
    }

    /// ENFORCE switches override a named format when `Accept` lists theirs (never for a client
    /// that does not); JPEG XL and AVIF not for an animation, WebP even then; an AUTO switch
    /// alone never overrides a named format, and without a named format an AUTO JPEG XL still
    /// comes before an enforced AVIF, imgproxy's order.
    @Test func enforceSwitchesOverrideTheNamedFormat() async throws {
        try await Self.origin { origin in
            let still = origin.url("/still.jpg").absoluteString, moving = origin.url("/moving.gif").absoluteString
            try await RoutedServer.with(try Self.settings(["IMGPROXY_ENFORCE_WEBP": "1"])) { server async throws in
                #expect(try await Self.answer(server, insecurePath("w:40", still, extension: "png"), accept: Self.every) == "webp Accept")
                #expect(try await Self.answer(server, insecurePath("w:40", still, extension: "png"), accept: "image/png") == "png Accept")
                // An animation named as JPEG keeps its frames in the enforced WebP.
                let animation = try await server.request(insecurePath("", moving, extension: "jpg"), headers: [("Accept", "image/webp")])
                #expect(ImageFormat(sniffing: animation.body) == .webp)
                #expect(try ImageDecoder().decode(animation.body, options: DecodingOptions()).frames.count == 3)
            }
            let environment = ["IMGPROXY_AUTO_WEBP": "true", "IMGPROXY_ENFORCE_AVIF": "true", "IMGPROXY_AUTO_JXL": "true"]
            try await RoutedServer.with(try Self.settings(environment)) { server async throws in
                #expect(try await Self.format(server, insecurePath("w:40", still, extension: "png"), accept: Self.every) == "avif")
                #expect(try await Self.format(server, insecurePath("w:40", still), accept: Self.every) == "jxl")
                #expect(try await Self.format(server, insecurePath("w:40", still, extension: "png"), accept: "image/webp") == "png")
                // AVIF is not enforced over an animation, and auto WebP does not override a name.
                #expect(try await Self.format(server, insecurePath("", moving, extension: "gif"), accept: Self.every) == "gif")
                #expect(try await Self.format(server, insecurePath("", moving), accept: Self.every) == "webp")
            }
            try await RoutedServer.with(try Self.settings(["IMGPROXY_AUTO_WEBP": "false", "IMGPROXY_ENFORCE_JXL": "true"])) { server async throws in
                #expect(try await Self.answer(server, insecurePath("w:40", still, extension: "jpg"), accept: Self.every) == "jxl Accept")
                #expect(try await Self.answer(server, insecurePath("w:40", still), accept: "image/webp") == "jpeg Accept")
            }
        }
    }

    /// The result cache keeps apart what the switches decide differently for one URL: a
    /// client that lists the enforced format and one that does not get their own results,
    /// each again from the cache.
    @Test func enforcedResultsAreCachedPerDecision() async throws {
        try await Self.origin { origin in
            let still = origin.url("/still.jpg").absoluteString
            try await RoutedServer.with(try Self.settings(["IMGPROXY_ENFORCE_WEBP": "true"])) { server async throws in
                let path = insecurePath("w:40", still, extension: "png")
                for round in ["miss", "hit"] {
                    for (accept, format) in [("image/webp", ImageFormat.webp), ("image/png", .png)] {
                        let answer = try await server.request(path, headers: [("Accept", accept)])
                        #expect(ImageFormat(sniffing: answer.body) == format, "\(round) \(accept)")
                        #expect(answer.header("Server-Timing")?.contains("cache;desc=\(round)") == true, "\(round) \(accept)")
                    }
                }
            }
        }
    }
}

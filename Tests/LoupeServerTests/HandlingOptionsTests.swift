import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's handling options through the service's routes: `raw`,
/// `skip_processing`, `filename`, `return_attachment`, `expires`, `cachebuster`. Each test names
/// the imgproxy rule it checks.
@Suite struct HandlingOptionsTests {
    static let photo = Result { try TestImage.jpeg(width: 200, height: 100, seed: 8) }
    static let png = Result { try TestImage.png(width: 100, height: 50, seed: 3) }

    static func origin<T: Sendable>(_ body: (OriginServer) async throws -> T) async throws -> T {
        let files: [String: Data] = [
            "/photo.jpg": try photo.get(), "/logo.png": try png.get(), "/note.txt": Data("not an image".utf8),
        ]
        return try await OriginServer.run(handler: { request in files[request.path].map { OriginResponse.ok($0) } ?? .status(404) }, body)
    }

    static func size(_ data: Data) throws -> (Int, Int) {
        let metadata = try ImageDecoder().metadata(of: data)
        return (metadata.width, metadata.height)
    }

    /// imgproxy: `raw:1` answers the source's bytes as they are, ignoring every processing
    /// option and the extension. Here the limits still hold: the source must be allowed, within
    /// the size limit, and an image whose header is within the pixel limit.
    @Test func rawAnswersTheSourceBytesWithEveryLimitChecked() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                for options in ["raw:1/rs:fill:10:10/sh:2", "raw:true/q:5", "raw:1/fn:original"] {
                    let answer = try await server.request(insecurePath(options, photo, extension: "png"))
                    #expect(answer.status == 200, "\(options)")
                    #expect(answer.body == (try Self.photo.get()), "\(options)")
                    #expect(answer.header("Content-Type") == "image/jpeg")
                }
                #expect(try await server.request(insecurePath("raw:1/fn:original", photo)).header("Content-Disposition")
                        == "inline; filename=\"original.jpg\"")
                let processed = try await server.request(insecurePath("raw:0/w:50", photo, extension: "png"))
                #expect(processed.header("Content-Type") == "image/png")
                #expect(try Self.size(processed.body) == (50, 25))
                let text = try await server.request(insecurePath("raw:1", origin.url("/note.txt").absoluteString))
                #expect(text.status == 415)
                #expect(text.json["kind"] as? String == "notAnImage")
            }
            var pixels = testSettings()
            pixels.maximumSourcePixels = 10_000
            try await RoutedServer.with(pixels) { server in
                let bomb = try await server.request(insecurePath("raw:1", photo))
                #expect(bomb.status == 422)
                #expect(bomb.json["kind"] as? String == "tooManyPixels")
            }
            var bytes = testSettings()
            bytes.maximumSourceBytes = 200
            try await RoutedServer.with(bytes) { server in
                let large = try await server.request(insecurePath("raw:1", photo))
                #expect(large.status == 413)
            }
            var sources = testSettings()
            sources.sources = try SourcePolicy(allowedPrefixes: ["http://127.0.0.1:1/"])
            try await RoutedServer.with(sources) { server in
                let forbidden = try await server.request(insecurePath("raw:1", photo))
                #expect(forbidden.status == 403)
                #expect(forbidden.json["kind"] as? String == "forbiddenSource")
            }
        }
    }

    /// imgproxy: `skip_processing:%formats` answers the source's bytes when its format is
    /// listed and the result would have the same format (the URL names none, or the same);
    /// otherwise the image is processed as usual. The pixel limit still holds.
    @Test func skipProcessingPassesListedFormatsThrough() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString, logo = origin.url("/logo.png").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                let skipped = try await server.request(insecurePath("skp:png/w:20", logo))
                #expect(skipped.status == 200)
                #expect(skipped.body == (try Self.png.get()))
                #expect(skipped.header("Content-Type") == "image/png")
                let sameFormat = try await server.request(insecurePath("skip_processing:jpg:png/w:20", logo, extension: "png"))
                #expect(sameFormat.body == (try Self.png.get()))
                // Another source format: processed.
                let jpeg = try await server.request(insecurePath("skp:png/w:20", photo))
                #expect(jpeg.header("Content-Type") == "image/jpeg")
                #expect(try Self.size(jpeg.body) == (20, 10))
                // Another output format: processed.
                let webp = try await server.request(insecurePath("skp:png/w:20", logo, extension: "webp"))
                #expect(webp.header("Content-Type") == "image/webp")
                #expect(try Self.size(webp.body) == (20, 10))
                // jpeg and jpg are one format.
                let alias = try await server.request(insecurePath("skp:jpeg/w:20", photo, extension: "jpg"))
                #expect(alias.body == (try Self.photo.get()))
                for options in ["skp:bmpx", "skp"] {
                    let bad = try await server.request(insecurePath(options, logo))
                    #expect(bad.status == 400, "\(options)")
                }
            }
            var pixels = testSettings()
            pixels.maximumSourcePixels = 1_000
            try await RoutedServer.with(pixels) { server in
                let bomb = try await server.request(insecurePath("skp:png", logo))
                #expect(bomb.status == 422 && bomb.json["kind"] as? String == "tooManyPixels")
            }
        }
    }

    /// imgproxy: `filename:%name:%encoded` sets the name in `Content-Disposition` (URL-safe
    /// base64 when `encoded` is true), the extension staying the result's; `return_attachment:1`
    /// makes it `attachment`. Neither changes the image: same bytes, same ETag.
    @Test func filenameAndReturnAttachmentSetContentDisposition() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                let plain = try await server.request(insecurePath("w:40", photo, extension: "jpg"))
                #expect(plain.header("Content-Disposition") == "inline; filename=\"photo.jpg\"")
                let encoded = Data("résumé \"final\"".utf8).base64EncodedString()
                    .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
                let cases = [
                    ("w:40/fn:holiday", "jpg", "inline; filename=\"holiday.jpg\""),
                    ("w:40/filename:holiday", "webp", "inline; filename=\"holiday.webp\""),
                    ("w:40/fn:holiday:0", "jpg", "inline; filename=\"holiday.jpg\""),
                    ("w:40/fn:\(encoded):1", "jpg", "inline; filename=\"r%C3%A9sum%C3%A9 %22final%22.jpg\""),
                    ("w:40/att:1", "jpg", "attachment; filename=\"photo.jpg\""),
                    ("w:40/return_attachment:true/fn:x", "png", "attachment; filename=\"x.png\""),
                    ("w:40/att:0", "jpg", "inline; filename=\"photo.jpg\""),
                ]
                for (options, ext, disposition) in cases {
                    let answer = try await server.request(insecurePath(options, photo, extension: ext))
                    #expect(answer.status == 200, "\(options)")
                    #expect(answer.header("Content-Disposition") == disposition, "\(options)")
                    if ext == "jpg" {
                        #expect(answer.body == plain.body && answer.header("ETag") == plain.header("ETag"), "\(options)")
                    }
                }
                for options in ["fn:a:1:2", "fn:!!!:1", "att:maybe"] {
                    let bad = try await server.request(insecurePath(options, photo))
                    #expect(bad.status == 400 && bad.json["kind"] as? String == "badOption", "\(options)")
                }
            }
        }
    }

    /// imgproxy: `expires:%timestamp` refuses the URL after that Unix time (404 there, as
    /// here), a time of 0 or below sets none, and a result's cache lifetime is cut to the time
    /// left.
    @Test func expiresRefusesLateURLsAndShortensCacheLifetime() async throws {
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            let now = Int(Date().timeIntervalSince1970)
            try await RoutedServer.with(testSettings()) { server in
                for options in ["w:30/exp:0", "w:30/exp:-5", "w:30/exp:\(now + 10 * 365 * 86_400)"] {
                    let answer = try await server.request(insecurePath(options, photo))
                    #expect(answer.status == 200, "\(options)")
                    #expect(answer.header("Cache-Control") == "public, max-age=31536000", "\(options)")
                }
                let soon = try await server.request(insecurePath("w:30/exp:\(now + 600)", photo))
                #expect(soon.status == 200)
                let maxAge = soon.header("Cache-Control").flatMap { Int($0.split(separator: "=").last ?? "") } ?? -1
                #expect(maxAge > 0 && maxAge <= 600, "\(soon.header("Cache-Control") ?? "")")
                let late = try await server.request(insecurePath("w:30/exp:\(now - 10)", photo))
                #expect(late.status == 404 && late.json["kind"] as? String == "expired")
                let bad = try await server.request(insecurePath("exp:soon", photo))
                #expect(bad.status == 400)
            }
        }
    }

    /// imgproxy's names and short aliases of these options mean the same, and each changes
    /// something.
    @Test func longNamesAndAliasesAgree() throws {
        let presets = try Presets(definitions: ["p=w:10"])
        let pairs = [("sharpen:1", "sh:1"), ("pixelate:4", "pix:4"), ("format_quality:webp:50", "fq:webp:50"),
                     ("max_bytes:1000", "mb:1000"), ("raw:1", "raw:t"), ("skip_processing:png", "skp:png"),
                     ("filename:a", "fn:a"), ("return_attachment:1", "att:1"), ("preset:p", "pr:p"),
                     ("keep_copyright:0", "kcr:0"), ("strip_color_profile:1", "scp:1")]
        for (long, short) in pairs {
            let a = try ImgproxyURL(path: "/_/\(long)/plain/http://a.com/x.jpg", presets: presets, onlyPresets: false).options
            let b = try ImgproxyURL(path: "/_/\(short)/plain/http://a.com/x.jpg", presets: presets, onlyPresets: false).options
            #expect(a == b, "\(long) vs \(short)")
            // kcr:0 and scp:1 are what every result is already.
            #expect(a != ProcessingOptions() || long.hasPrefix("keep_copyright") || long.hasPrefix("strip_color"), "\(long) changed nothing")
        }
    }

    /// imgproxy: `cachebuster:%string` changes the URL (and so caches' keys) but not the
    /// image; an empty one is none.
    @Test func cachebusterChangesTheResultKeyOnly() async throws {
        func key(_ options: String) throws -> String {
            try ImgproxyURL(path: "/_/\(options)/plain/http://a.com/x.jpg", presets: Presets(), onlyPresets: false).options.resultKey
        }
        #expect(try key("w:10/cb:1") != key("w:10/cb:2"))
        #expect(try key("w:10/cb:1") != key("w:10"))
        #expect(try key("w:10/cb:") == key("w:10"))
        // Options that only change headers do not change the result key.
        #expect(try key("w:10/fn:a/att:1/exp:0") == key("w:10"))
        try await Self.origin { origin in
            let photo = origin.url("/photo.jpg").absoluteString
            try await RoutedServer.with(testSettings()) { server in
                let one = try await server.request(insecurePath("w:30/cb:1", photo))
                let two = try await server.request(insecurePath("w:30/cachebuster:2", photo))
                #expect(one.status == 200 && two.status == 200)
                #expect(one.body == two.body)
            }
        }
    }
}

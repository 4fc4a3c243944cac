import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Logging
import Testing

/// Options → pipeline → encoded response, and the HTTP around it, through the service's routes and a
/// real server, sources from a real origin on loopback.
@Suite struct ServingTests {
    static func decode(_ data: Data) throws -> DecodedImage {
        try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true))
    }

    @Test func resizesEncodesAndSetsHeaders() async throws {
        let photo = try TestImage.jpeg(width: 400, height: 300, seed: 1)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let answer = try await server.request(insecurePath("rs:fit:100:100", origin.url("/cat.jpg").absoluteString))
                #expect(answer.status == 200)
                #expect(answer.header("Content-Type") == "image/jpeg")
                #expect(answer.header("Cache-Control") == "public, max-age=31536000")
                #expect(answer.header("Vary") == "Accept")
                #expect(answer.header("Content-Disposition") == "inline; filename=\"cat.jpg\"")
                let etag = try #require(answer.header("ETag"))
                let image = try Self.decode(answer.body)
                #expect(image.metadata.format == .jpeg)
                #expect((image.metadata.width, image.metadata.height) == (100, 75))

                // The same URL with its ETag: 304, no body.
                let again = try await server.request(insecurePath("rs:fit:100:100", origin.url("/cat.jpg").absoluteString),
                                                     headers: [("If-None-Match", etag)])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == etag)

                // HEAD: the headers of GET, no body.
                let head = try await server.request(insecurePath("rs:fit:100:100", origin.url("/cat.jpg").absoluteString), method: .HEAD)
                #expect(head.status == 200)
                #expect(head.body.isEmpty)
                #expect(head.header("ETag") == etag)
                #expect(head.header("Content-Type") == "image/jpeg")
            }
        }
    }

    /// The ETag is a digest of the result's bytes, so it holds across instances and restarts
    /// (each makes the same bytes from the same source and options, nothing shared between
    /// them): a browser or CDN revalidating through a load balancer at another instance gets a
    /// 304. A changed source makes different bytes, so a different ETag.
    @Test func etagHoldsAcrossInstancesAndChangesWithTheSource() async throws {
        let photos = [try TestImage.jpeg(width: 160, height: 120, seed: 21), try TestImage.jpeg(width: 160, height: 120, seed: 22)]
        let version = Counter()
        try await OriginServer.run(handler: { _ in .ok(photos[min(version.count, 1)]) }) { origin in
            let path = insecurePath("rs:fit:80:80", origin.url("/e.jpg").absoluteString, extension: "jpg")
            let first = try await RoutedServer.with(testSettings()) { server in
                try #require(try await server.request(path).header("ETag"))
            }
            try await RoutedServer.with(testSettings()) { server in
                let revalidated = try await server.request(path, headers: [("If-None-Match", first)])
                #expect(revalidated.status == 304)
                #expect(revalidated.header("ETag") == first)
            }
            version.increment()
            try await RoutedServer.with(testSettings()) { server in
                let changed = try await server.request(path, headers: [("If-None-Match", first)])
                #expect(changed.status == 200)
                #expect(changed.header("ETag") != nil && changed.header("ETag") != first)
            }
            #expect(origin.requestCount(for: "/e.jpg") == 3)
        }
    }

    @Test func formatFromAcceptWhenTheURLNamesNone() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 100, seed: 2)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/a.jpg").absoluteString
                let webp = try await server.request(insecurePath("w:50", source), headers: [("Accept", "image/avif,image/webp,*/*")])
                #expect(webp.status == 200)
                #expect(webp.header("Content-Type") == "image/webp")
                #expect(webp.header("Vary") == "Accept")
                let decoded = try Self.decode(webp.body)
                #expect(decoded.metadata.format == .webp)
                #expect((decoded.metadata.width, decoded.metadata.height) == (50, 25))

                // Named in the URL: no negotiation, but Vary all the same while the server
                // negotiates (imgproxy's rule: FormatNegotiationTests).
                let png = try await server.request(insecurePath("w:50", source, extension: "png"), headers: [("Accept", "image/webp")])
                #expect(png.header("Content-Type") == "image/png")
                #expect(png.header("Vary") == "Accept")
                #expect(try Self.decode(png.body).metadata.format == .png)
            }
        }
    }

    /// With --negotiate-avif, a browser listing AVIF gets AVIF; one listing only WebP (or
    /// refusing AVIF with q=0) still gets WebP, each with Vary: Accept.
    @Test func avifFromAcceptWhenNegotiationIsOn() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 100, seed: 5)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var settings = testSettings()
            settings.negotiatesAVIF = true
            try await RoutedServer.with(settings) { server in
                let source = origin.url("/a.jpg").absoluteString
                let avif = try await server.request(insecurePath("w:50", source), headers: [("Accept", "image/avif,image/webp,*/*")])
                #expect(avif.status == 200)
                #expect(avif.header("Content-Type") == "image/avif")
                #expect(avif.header("Vary") == "Accept")
                let decoded = try Self.decode(avif.body)
                #expect(decoded.metadata.format == .avif)
                #expect((decoded.metadata.width, decoded.metadata.height) == (50, 25))
                for accept in ["image/webp,*/*", "image/avif;q=0,image/webp,*/*"] {
                    let webp = try await server.request(insecurePath("w:50", source), headers: [("Accept", accept)])
                    #expect(webp.header("Content-Type") == "image/webp", "Accept: \(accept)")
                }
            }
        }
    }

    @Test func avifWhenTheURLNamesIt() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 100, seed: 4)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let avif = try await server.request(insecurePath("w:60/q:50", origin.url("/a.jpg").absoluteString, extension: "avif"))
                #expect(avif.status == 200)
                #expect(avif.header("Content-Type") == "image/avif")
                let decoded = try Self.decode(avif.body)
                #expect(decoded.metadata.format == .avif)
                #expect((decoded.metadata.width, decoded.metadata.height) == (60, 30))
            }
        }
    }

    /// A request's output choice: the URL's format by name (no negotiation), else what `Accept`
    /// lists that the server negotiates (AVIF only when on, before WebP), else the source's rule;
    /// the qualities resolved per lossy format. Its decisions are checked in OutputFormatPolicyTests.
    @Test func aPlansOutputChoiceComesFromTheURLOrAccept() throws {
        var settings = testSettings()
        settings.negotiatesAVIF = true
        settings.formatQuality = [.webp: 70]
        let service = try ImageService(settings: settings, metrics: ServerMetrics(), logger: Logger(label: "test"))
        let source = "/insecure/w:30/plain/http://127.0.0.1/a.png"
        let both = "image/avif,image/webp,*/*"
        #expect(try service.plan(path: source + "@jpg", accept: both).output.named == .jpeg)
        #expect(try service.plan(path: source + "@jpg", accept: both).output.accepted.isEmpty)
        let negotiated = try service.plan(path: source, accept: both)
        #expect(negotiated.output.accepted == [.avif, .webp] && negotiated.vary == "Accept")
        #expect(negotiated.output.decide(source: .gif, transparent: false, animated: true) == OutputDecision(format: .webp, quality: 70))
        #expect(negotiated.output.decide(source: .png, transparent: true, animated: false) == OutputDecision(format: .avif, quality: 80))
        #expect(try service.plan(path: source, accept: "image/webp;q=0, image/avif").output.accepted == [.avif])
        #expect(try service.plan(path: source, accept: nil).output.decide(source: .heif, transparent: true, animated: false).format == .png)
        settings.negotiatesAVIF = false
        let plain = try ImageService(settings: settings, metrics: ServerMetrics(), logger: Logger(label: "test"))
        #expect(try plain.plan(path: source, accept: both).output.accepted == [.webp])
    }

    @Test func everyResizeModeGivesImgproxysSize() async throws {
        let photo = try TestImage.png(width: 300, height: 200, seed: 3)
        try await OriginServer.run(handler: { _ in .ok(photo, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/p.png").absoluteString
                let cases: [(String, Int, Int)] = [
                    ("rs:fit:100:100", 100, 67), ("rs:fill:100:100", 100, 100), ("rs:fill:100:100/g:nowe:5:5", 100, 100),
                    ("rs:force:100:30", 100, 30), ("rs:auto:100:50", 100, 50), ("rs:auto:50:100", 50, 33),
                    ("rs:fit:600:600", 300, 200), ("rs:fit:600:600:1", 600, 400), ("rs:fill:600:100", 300, 100),
                    ("rs:fill-down:600:100", 300, 50), ("s:0:50", 75, 50), ("w:150/h:150/dpr:2", 300, 200),
                    ("w:150/dpr:0.5", 75, 50), ("bl:3/bg:00ff00", 300, 200), ("q:10/w:30", 30, 20),
                    ("cb:v2/w:30/sm:1", 30, 20), ("exp:4000000000/w:30", 30, 20),
                ]
                for (options, width, height) in cases {
                    let answer = try await server.request(insecurePath(options, source, extension: "png"))
                    #expect(answer.status == 200, "\(options): \(String(decoding: answer.body, as: UTF8.self))")
                    guard answer.status == 200 else { continue }
                    let image = try Self.decode(answer.body)
                    #expect((image.metadata.width, image.metadata.height) == (width, height), "\(options)")
                }
            }
        }
    }

    @Test func gravityChoosesTheKeptSide() async throws {
        // Left half red, right half blue: a west cut keeps red, an east cut blue.
        var pixels = [UInt8]()
        for _ in 0..<50 { for x in 0..<200 { pixels += x < 100 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        let png = try ImageEncoder().encode(try Bitmap(width: 200, height: 50, pixels: pixels), as: .png)
        try await OriginServer.run(handler: { _ in .ok(png, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/halves.png").absoluteString
                let west = try Self.decode(try await server.request(insecurePath("rs:fill:50:50/g:we", source, extension: "png")).body)
                let east = try Self.decode(try await server.request(insecurePath("rs:fill:50:50/g:ea", source, extension: "png")).body)
                #expect(west.bitmap.pixel(x: 25, y: 25).r == 255 && west.bitmap.pixel(x: 25, y: 25).b == 0)
                #expect(east.bitmap.pixel(x: 25, y: 25).b == 255 && east.bitmap.pixel(x: 25, y: 25).r == 0)
            }
        }
    }

    /// `g:sm` over HTTP: grey with one detailed patch near the right edge; the smart cut keeps
    /// all of the patch's pixels, where the centre cut keeps none.
    @Test func smartGravityKeepsTheDetail() async throws {
        var pixels = [UInt8]()
        for y in 0..<100 {
            for x in 0..<300 {
                let inside = (220..<280).contains(x) && (20..<80).contains(y)
                let value: UInt8 = inside ? ((x / 2 + y / 2) % 2 == 0 ? 0 : 255) : 128
                pixels += [value, value, value, 255]
            }
        }
        let png = try ImageEncoder().encode(try Bitmap(width: 300, height: 100, pixels: pixels), as: .png)
        @Sendable func patchPixels(_ bitmap: Bitmap) -> Int {
            (0..<bitmap.height).reduce(0) { sum, y in sum + (0..<bitmap.width).filter { bitmap.pixel(x: $0, y: y).r != 128 }.count }
        }
        try await OriginServer.run(handler: { _ in .ok(png, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let source = origin.url("/patch.png").absoluteString
                let smart = try await server.request(insecurePath("rs:fill:100:100/g:sm", source, extension: "png"))
                let centre = try await server.request(insecurePath("rs:fill:100:100/g:ce", source, extension: "png"))
                #expect(smart.status == 200 && centre.status == 200)
                #expect(patchPixels(try Self.decode(smart.body).bitmap) == 3600)
                #expect(patchPixels(try Self.decode(centre.body).bitmap) == 0)
            }
        }
    }

    @Test func backgroundFlattensTransparency() async throws {
        let clear = try ImageEncoder().encode(try Bitmap(width: 4, height: 4, pixels: [UInt8](repeating: 0, count: 64)), as: .png)
        try await OriginServer.run(handler: { _ in .ok(clear, contentType: "image/png") }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let answer = try await server.request(insecurePath("bg:10:20:30", origin.url("/c.png").absoluteString, extension: "png"))
                let pixel = try Self.decode(answer.body).bitmap.pixel(x: 1, y: 1)
                #expect((pixel.r, pixel.g, pixel.b, pixel.a) == (10, 20, 30, 255))
            }
        }
    }

    /// Every error status of the issue, each a JSON `{"kind", "message"}`.
    @Test func errorsAreJSONWithTheirStatus() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 200, seed: 4)
        try await OriginServer.run(handler: { request in
            switch request.path {
            case "/ok.jpg": .ok(photo)
            case "/big.jpg": .ok(Data(repeating: 0xFF, count: 3 << 20))
            case "/text": .ok(Data("hello, not an image".utf8), contentType: "text/plain")
            case "/broken": .status(500)
            case "/slow.jpg": .ok(photo, delay: .seconds(20))
            default: .status(404)
            }
        }) { origin in
            var settings = testSettings()
            settings.maximumSourceBytes = 1 << 20
            settings.maximumSourcePixels = 10_000
            // Far above what the other cases take even under ThreadSanitizer (the 500 is retried
            // with backoff; 1 s was too short there, and 6 s for a refusal from the header beside
            // forty suites and a build), far below the slow source's delay.
            settings.requestTimeout = .seconds(10)
            try await RunningServer.with(settings) { server in
                func source(_ path: String) -> String { origin.url(path).absoluteString }
                let cases: [(String, Int, String)] = [
                    (insecurePath("dt:1", source("/ok.jpg")), 400, "unsupportedOption"),
                    (insecurePath("w:abc", source("/ok.jpg")), 400, "badOption"),
                    ("/insecure", 400, "badURL"),
                    (insecurePath("w:10", source("/ok.jpg")).replacingOccurrences(of: "/insecure/", with: "/wrongsig/"), 403, "badSignature"),
                    (insecurePath("", "ftp://127.0.0.1/x.jpg"), 403, "forbiddenSource"),
                    (insecurePath("exp:1000", source("/ok.jpg")), 404, "expired"),
                    (insecurePath("w:10", source("/missing.jpg")), 404, "sourceNotFound"),
                    (insecurePath("w:10", source("/big.jpg")), 413, "sourceTooLarge"),
                    (insecurePath("w:10", source("/ok.jpg")), 422, "tooManyPixels"),
                    (insecurePath("w:10", source("/text")), 415, "notAnImage"),
                    (insecurePath("w:10", source("/broken")), 502, "sourceFailed"),
                    (insecurePath("w:10", source("/slow.jpg")), 504, "timeout"),
                    (insecurePath("w:99999", source("/ok.jpg")), 400, "badOption"),
                ]
                for (path, status, kind) in cases {
                    let answer = try await server.request(path)
                    #expect(answer.status == status, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                    #expect(answer.header("Content-Type") == "application/json", "\(path)")
                    #expect(answer.json["kind"] as? String == kind, "\(path)")
                    #expect((answer.json["message"] as? String)?.isEmpty == false, "\(path)")
                    // imgproxy 4 sends no Cache-Control on an error.
                    #expect(answer.header("Cache-Control") == nil, "\(path)")
                }
                let post = try await server.request("/insecure/w:1/plain/x", method: .DELETE)
                #expect(post.status == 405)
            }
        }
    }

    @Test func healthAndMetrics() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 5)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            try await RoutedServer.with(testSettings()) { server in
                let health = try await server.request("/health")
                #expect(health.status == 200)
                #expect(health.json["status"] as? String == "ok")
                _ = try await server.request(insecurePath("w:10", origin.url("/m.jpg").absoluteString))
                _ = try await server.request(insecurePath("nope:1", origin.url("/m.jpg").absoluteString))
                let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
                #expect(metrics.contains(#"loupe_http_requests_total{status="200"}"#))
                #expect(metrics.contains(#"loupe_http_requests_total{status="400"} 1"#))
                for stage in ["queue", "download", "decode", "encode", "total"] {
                    #expect(metrics.contains(#"loupe_stage_duration_seconds_count{stage="\#(stage)"} "#), "\(stage)")
                    #expect(!metrics.contains(#"loupe_stage_duration_seconds_count{stage="\#(stage)"} 0"#), "\(stage)")
                }
                #expect(metrics.contains("loupe_pipeline_downloads 1"))
            }
        }
    }
}

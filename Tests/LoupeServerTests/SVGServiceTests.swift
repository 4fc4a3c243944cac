import Foundation
import LoupeCodecs
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// SVG sources through the service's routes, as imgproxy 4 answers them: drawn at the size a
/// raster result needs; answered as themselves, sanitised, when the URL names SVG or no format;
/// refused with 422 when broken, declaring entities or too large.
@Suite struct SVGServiceTests {
    /// A document with something of each kind the sanitiser removes, and a red square it keeps.
    static let hostile = #"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="20" "#
        + #"onload="alert(1)"><script>alert(2)</script><rect width="20" height="20" fill="\#u{23}f00" onclick="alert(3)"/>"#
        + #"<a href="javascript:alert(4)"><circle cx="30" cy="10" r="5"/></a><image href="https://example.com/x.png" width="1" height="1"/>"#
        + #"<foreignObject width="5" height="5"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject></svg>"#

    /// A corpus document (Debian's, Scripts/fetch-corpus.sh) for the raster results.
    static let corpusFile = "svg/debian-logo.svg"

    static func serve(_ files: [String: Data], settings change: (inout ServerSettings) -> Void = { _ in },
                      _ body: @Sendable (RoutedServer) async throws -> Void) async throws {
        let root = try TemporaryFolder.created()
        defer { root.remove() }
        for (name, data) in files { try data.write(to: URL(fileURLWithPath: root.path(name))) }
        var settings = testSettings()
        settings.localRoot = try RootedFileSystem(root: root.url.path)
        change(&settings)
        try await RoutedServer.with(settings, body)
    }

    /// A raster result is drawn at the size asked (PNG and WebP, by extension and by `Accept`
    /// with no format when SVG results are off), close to librsvg's own drawing at that size.
    @Test func rasterResultsAreDrawnAtTheRequestedSize() async throws {
        let source = try Corpus.data(Self.corpusFile)
        let natural = try SVGDecoder().metadata(of: source)
        let scale = min(40.0 / Double(natural.width), 40.0 / Double(natural.height))
        let (width, height) = (Int((Double(natural.width) * scale).rounded()), Int((Double(natural.height) * scale).rounded()))
        // librsvg's drawing at that scale, fitted to the same size (the reference for the pixels).
        let drawn = try SVGDecoder().decode(source, options: DecodingOptions(minimumScale: scale)).bitmap
        try await Self.serve(["a.svg": source], settings: { $0.alwaysRasterizesSVG = true }) { server in
            let cases: [(String, [(String, String)], ImageFormat)] = [
                ("/insecure/rs:fit:40:40/plain/local:///a.svg@png", [], .png),
                ("/insecure/rs:fit:40:40/plain/local:///a.svg@webp", [], .webp),
                ("/insecure/rs:fit:40:40/plain/local:///a.svg", [("Accept", "image/webp,*/*")], .webp),
                ("/insecure/rs:fit:40:40/plain/local:///a.svg", [], .png),
            ]
            for (path, headers, format) in cases {
                let answer = try await server.request(path, headers: headers)
                #expect(answer.status == 200, "\(path): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                #expect(answer.header("Content-Type") == format.mimeType, "\(path)")
                let image = try ImageDecoder().decode(answer.body).bitmap
                #expect(image.width == width && image.height == height, "\(path): \(image.width)x\(image.height), expected \(width)x\(height)")
                if format == .png {
                    let difference = PixelDifference(image, drawn)
                    #expect(difference.mean < 3, "\(path): mean difference \(difference.mean) from librsvg's drawing at the size")
                }
            }
        }
    }

    /// With no format (whatever `Accept` says) or `@svg`, an SVG source is answered as itself,
    /// sanitised: the same bytes as the sanitiser's, no script, event attribute, javascript: URL,
    /// outside reference or foreignObject left; processing options change nothing.
    @Test func svgResultsAreTheSanitisedSource() async throws {
        let source = Data(Self.hostile.utf8)
        let expected = try SVGSanitizer.sanitize(source)
        try await Self.serve(["h.svg": source]) { server in
            for (path, headers) in [("/insecure/plain/local:///h.svg", [("Accept", "image/avif,image/webp,*/*")]),
                                    ("/insecure/rs:fit:10:10/bl:5/plain/local:///h.svg", []),
                                    ("/insecure/plain/local:///h.svg@svg", []), ("/insecure/f:svg/plain/local:///h.svg", [])] {
                let answer = try await server.request(path, headers: headers)
                #expect(answer.status == 200, "\(path): \(String(decoding: answer.body.prefix(300), as: UTF8.self))")
                #expect(answer.header("Content-Type") == "image/svg+xml", "\(path)")
                #expect(answer.body == expected, "\(path)")
                let text = String(decoding: answer.body, as: UTF8.self)
                for removed in ["script", "alert", "onload", "onclick", "javascript", "example.com", "foreignObject"] {
                    #expect(!text.contains(removed), "\(path): '\(removed)' left in \(text)")
                }
                #expect(text.contains(#"<rect width="20" height="20" fill="\#u{23}f00"/>"#), "\(path)")
            }
            // skip_processing names SVG: sanitised too (imgproxy's rule); raw: the bytes as they are.
            let skipped = try await server.request("/insecure/skp:svg/plain/local:///h.svg@svg")
            #expect(skipped.status == 200 && skipped.body == expected)
            let raw = try await server.request("/insecure/raw:1/plain/local:///h.svg")
            #expect(raw.status == 200 && raw.body == source && raw.header("Content-Type") == "image/svg+xml")
        }
    }

    /// `--sanitize-svg` off answers the source's bytes; `--always-rasterize-svg` draws a source
    /// with no format named (PNG: the document is transparent around its shapes), while `@svg`
    /// still answers the document.
    @Test func settingsChangeTheAnswer() async throws {
        let source = Data(Self.hostile.utf8)
        try await Self.serve(["h.svg": source], settings: { $0.sanitizesSVG = false }) { server in
            let answer = try await server.request("/insecure/plain/local:///h.svg")
            #expect(answer.status == 200 && answer.header("Content-Type") == "image/svg+xml" && answer.body == source)
        }
        try await Self.serve(["h.svg": source], settings: { $0.alwaysRasterizesSVG = true }) { server in
            let png = try await server.request("/insecure/plain/local:///h.svg")
            #expect(png.status == 200 && png.header("Content-Type") == "image/png")
            let bitmap = try ImageDecoder().decode(png.body).bitmap
            #expect(bitmap.width == 40 && bitmap.height == 20)
            let red = bitmap.pixel(x: 5, y: 5), corner = bitmap.pixel(x: 35, y: 2)
            #expect(red.r == 255 && red.g == 0 && red.b == 0 && red.a == 255 && corner.a == 0)
            let svg = try await server.request("/insecure/plain/local:///h.svg@svg")
            let sanitized = try SVGSanitizer.sanitize(source)
            #expect(svg.status == 200 && svg.body == sanitized)
        }
    }

    /// Refusals, each a 422 naming its cause: `@svg` for another format's source, a document
    /// declaring entities (as an SVG answer and as a raster one), a broken document, a declared
    /// size over the pixel limit.
    @Test func refusalsAre422() async throws {
        let entities = #"<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>"#
            + #"<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><text>&b;</text></svg>"#
        let bomb = #"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"><rect width="9" height="9"/></svg>"#
        let files = ["c.png": try Corpus.data("skimage/coffee.png"), "e.svg": Data(entities.utf8),
                     "b.svg": Data(bomb.utf8), "x.svg": Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><g></svg>"#.utf8)]
        try await Self.serve(files) { server in
            let cases: [(String, String)] = [
                ("/insecure/plain/local:///c.png@svg", "encodingFailed"),
                ("/insecure/plain/local:///e.svg", "corruptImage"), ("/insecure/rs:fit:5:5/plain/local:///e.svg@png", "corruptImage"),
                ("/insecure/plain/local:///x.svg@svg", "corruptImage"),
                ("/insecure/plain/local:///b.svg", "tooManyPixels"), ("/insecure/rs:fit:10:10/plain/local:///b.svg@png", "tooManyPixels"),
            ]
            for (path, kind) in cases {
                let answer = try await server.request(path)
                #expect(answer.status == 422, "\(path): \(answer.status)")
                #expect(answer.json["kind"] as? String == kind, "\(path): \(answer.json)")
            }
        }
    }
}

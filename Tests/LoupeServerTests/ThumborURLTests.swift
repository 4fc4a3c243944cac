import Foundation
import LoupeCodecs
import LoupeProcessing
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// thumbor's URL grammar: paths written by libthumbor (thumbor's own URL library, PyPI) read as
/// libthumbor reads them, the rule that tells the two dialects apart, and filters' arguments.
@Suite struct ThumborURLTests {
    /// A spread of option combinations written by libthumbor's `Url.generate_options` and read
    /// back by its `Url.parse_decrypted` (thumbor's URL pattern): Loupe reads every one the same.
    @Test func pathsReadAsLibthumborReadsThem() async throws {
        let output = try await PythonReference.run("thumbor_urls.py", arguments: ["parse"])
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count > 300)
        var passed = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(object["path"] as? String)
            let parsed = try #require(object["parsed"] as? [String: Any])
            let url = try ThumborURL(path: path)
            let geometry = try #require(url.options.thumbor)
            let crop = try #require(parsed["crop"] as? [String: Int])
            let expectedCrop = crop.values.allSatisfy { $0 == 0 } ? nil
                : ThumborGeometry.Box(left: crop["left"] ?? -1, top: crop["top"] ?? -1, right: crop["right"] ?? -1, bottom: crop["bottom"] ?? -1)
            let trim = parsed["trim"] as? String
            let expectedTrim = trim.map { text in
                ThumborGeometry.Trim(bottomRight: text.contains("bottom-right"), tolerance: Int(text.split(separator: ":").last ?? "") ?? 0)
            }
            let fit: ThumborGeometry.FitIn = (parsed["fit_in"] as? Bool) != true ? .none
                : ThumborGeometry.FitIn(rawValue: ((parsed["adaptive"] as? Bool) == true ? "adaptive-" : "")
                    + ((parsed["full"] as? Bool) == true ? "full-" : "") + "fit-in") ?? .none
            let shares = ["left": 0.0, "center": 0.5, "right": 1.0, "top": 0.0, "middle": 0.5, "bottom": 1.0]
            let image = try #require(parsed["image"] as? String)
            let decoded = try #require(image.removingPercentEncoding)
            let checks: [(String, Bool)] = [
                ("meta", url.meta == (parsed["meta"] as? Bool)),
                ("trim", geometry.trim == expectedTrim),
                ("crop", geometry.crop == expectedCrop),
                ("fit-in", geometry.fitIn == fit),
                ("width", geometry.width == Self.side(parsed["width"])),
                ("height", geometry.height == Self.side(parsed["height"])),
                ("flips", geometry.flipHorizontal == (parsed["horizontal_flip"] as? Bool) && geometry.flipVertical == (parsed["vertical_flip"] as? Bool)),
                ("halign", geometry.horizontalAlignment == shares[parsed["halign"] as? String ?? ""]),
                ("valign", geometry.verticalAlignment == shares[parsed["valign"] as? String ?? ""]),
                ("smart", geometry.smart == (parsed["smart"] as? Bool)),
                ("filters", url.filters == ThumborFilterCall.parse(parsed["filters"] as? String ?? "")),
                ("image", url.source == (decoded.contains("://") ? decoded : "http://" + decoded)),
            ]
            let failed = checks.filter { !$0.1 }.map(\.0)
            #expect(failed.isEmpty, "\(path): \(failed) differ from libthumbor's \(parsed)")
            if failed.isEmpty { passed += 1 }
        }
        #expect(passed == lines.count)
    }

    static func side(_ value: Any?) -> ThumborGeometry.Side? {
        if let text = value as? String, text == "orig" { return .original }
        return (value as? Int).map { .pixels($0) }
    }

    /// The dialect rule on both dialects' own URLs: thumbor's first segment is `unsafe` or a
    /// padded 28-character HMAC-SHA1; imgproxy's is `insecure`, `_` or a 43-character HMAC-SHA256.
    @Test func theDialectIsDecidedByThePathsShape() throws {
        let signer = ThumborSigner(key: "my-key")
        let signed = "/" + signer.signature(for: "300x200/smart/example.com/a.jpg") + "/300x200/smart/example.com/a.jpg"
        let thumbor = ["/unsafe/300x200/example.com/a.jpg", "/unsafe/http://example.com/a.jpg", signed,
                       signed.replacingOccurrences(of: "=/", with: "%3D/"), "/unsafe/fit-in/-0x-0/filters:quality(80)/a.jpg",
                       // Truncated signatures stay thumbor's, to be refused as such.
                       String(signed.prefix(27)) + "/300x200/a.jpg", String(signed.prefix(20)) + "/300x200/a.jpg"]
        let imgproxyKey = URLSigner.KeyPair(key: Data("key".utf8), salt: Data("salt".utf8))
        let imgproxySigned = "/" + (URLSigner(pairs: [imgproxyKey]).signature(for: "/rs:fit:300:300/plain/http://example.com/a.jpg") ?? "")
            + "/rs:fit:300:300/plain/http://example.com/a.jpg"
        let imgproxy = ["/insecure/rs:fit:300:300/plain/http://example.com/a.jpg", "/_/w:100/aHR0cDovL2V4YW1wbGUuY29tL2EuanBn.png",
                        imgproxySigned, "/insecure/plain/http://example.com/unsafe/a.jpg", "/insecure/unsafe/plain/a.jpg",
                        // Characters outside URL-safe base64: not thumbor's.
                        "/abcdefghijklmnopqrstuvwxy+0=/plain/a.jpg", "/rs:fit:10:10/plain/a.jpg", "//plain/a.jpg"]
        for path in thumbor { #expect(ThumborURL.isThumborPath(path), "\(path)") }
        for path in imgproxy {
            #expect(!ThumborURL.isThumborPath(path), "\(path)")
        }
        _ = try ImgproxyURL(path: imgproxySigned)
        _ = try ThumborURL(path: signed)
        // With --signature-size 8, imgproxy's signatures are 11 characters, and are imgproxy's.
        let short = "/" + (URLSigner(pairs: [imgproxyKey], size: 8).signature(for: "/w:100/plain/a.jpg") ?? "") + "/w:100/plain/a.jpg"
        #expect(!ThumborURL.isThumborPath(short, imgproxySignatureLength: 11))
        #expect(ThumborURL.isThumborPath(short))
        // A server without imgproxy URLs takes any signature-shaped segment for thumbor's.
        #expect(ThumborURL.isThumborPath(imgproxySigned, imgproxySignatureLength: nil))
    }

    /// An unknown filter is ignored, as thumbor ignores it, and so is a known one whose
    /// arguments do not read; filters with an imgproxy twin set the twin's field.
    @Test func filtersMapToTheirTwinsAndBadArgumentsAreLeftOut() throws {
        let url = try ThumborURL(path: "/unsafe/300x200/filters:quality(70):format(webp):blur(3):rotate(90):unknown(1,2):background_color(ff0000)/a.jpg")
        #expect(url.options.quality == 70)
        #expect(url.options.format == .webp)
        // thumbor's own blur (its kernel cut at the radius), not imgproxy's: a step of its own.
        #expect(url.options.blur == 0)
        #expect(url.options.thumborFilters.steps.map(\.identifier) == [ImageProcessors.ThumborBlur(radius: 3)?.identifier])
        // As thumbor: a radius of 0 is refused and the filter left out; one past 150 is cut to it.
        #expect(try ThumborURL(path: "/unsafe/filters:blur(0)/a.jpg").options.thumborFilters.steps.isEmpty)
        #expect(try ThumborURL(path: "/unsafe/filters:blur(500)/a.jpg").options.thumborFilters.steps.map(\.identifier)
            == [ImageProcessors.ThumborBlur(radius: 150, sigma: 500)?.identifier])
        #expect(url.options.rotate == 270)
        #expect(url.options.background == RGBColor(red: 255, green: 0, blue: 0))
        #expect(url.filters.map(\.name) == ["quality", "format", "blur", "rotate", "unknown", "background_color"])
        let geometry = try ThumborURL(path: "/unsafe/fit-in/300x200/filters:upscale():fill(blue):focal(10x20:30x60):proportion(0.5)/a.jpg").options.thumbor
        #expect(geometry?.upscale == true)
        #expect(geometry?.fillsBox == true)
        #expect(geometry?.focalPoints == [ThumborGeometry.FocalPoint(x: 20, y: 40, weight: 800)])
        #expect(geometry?.proportion == 0.5)
        for (filter, name) in [("quality(abc)", "quality"), ("quality(101)", "quality"), ("blur()", "blur"), ("fill(zzz)", "fill"),
                               ("rotate(x)", "rotate"), ("focal(1x2)", "focal"), ("max_bytes(-1)", "max_bytes"), ("quality(1,2)", "quality"),
                               ("brightness(x)", "brightness"), ("contrast(1.5)", "contrast"), ("rgb(1,2)", "rgb"), ("saturation(abc)", "saturation"),
                               ("noise(-1)", "noise"), ("noise(5,-2)", "noise"), ("convolution(1;2,1,true)", "convolution"),
                               ("convolution(1;2;1,3,maybe)", "convolution"), ("convolution(1;x;1,3)", "convolution"),
                               ("round_corner(a,1,2,3)", "round_corner"), ("round_corner(10,256,0,0)", "round_corner"),
                               ("round_corner(10|,1,2,3)", "round_corner"), ("colorize(1,2,3,zz)", "colorize"), ("colorize(1,2,-3,ffffff)", "colorize"),
                               ("watermark(a.png,left,0,10)", "watermark"), ("watermark(a.png,0,0,10,-5)", "watermark"),
                               ("watermark(,0,0,10)", "watermark"), ("fill(blur,maybe)", "fill"), ("grayscale(1)", "grayscale"),
                               ("curve([(0,0)],[(0,0)],[(0,0)])", "curve"), ("curve([(5,0),(1,9)],[(0,0)],[(0,0)],[(0,0)])", "curve"),
                               ("curve([(0,300)],[(0,0)],[(0,0)],[(0,0)])", "curve"), ("curve(x,[(0,0)],[(0,0)],[(0,0)])", "curve"),
                               ("sharpen(1,2)", "sharpen"), ("sharpen(a,1,true)", "sharpen"), ("sharpen(1,1,yes)", "sharpen")] {
            // Left out, as thumbor leaves out a filter whose arguments it cannot read: the URL is
            // served as if it had no such filter (one that reads is kept beside it).
            let url = try ThumborURL(path: "/unsafe/filters:\(filter):quality(70)/a.jpg")
            #expect(url.filters.map(\.name) == [name, "quality"], "\(filter)")
            var expected = try ThumborURL(path: "/unsafe/filters:quality(70)/a.jpg").options
            expected.thumbor = url.options.thumbor
            #expect(url.options.resultKey == expected.resultKey, "\(filter)")
            #expect(url.options.quality == 70, "\(filter)")
        }
    }

    /// Malformed paths are 400s, never crashes: no image, huge numbers, bad percent-encoding.
    @Test func malformedPathsAreRefused() {
        for path in ["/unsafe/", "/unsafe/300x200/", "/unsafe/%zz", "/unsafe/filters:quality(80)/"] {
            #expect(throws: ServiceError.self, "\(path)") { try ThumborURL(path: path) }
        }
        // Numbers past seven digits are not dimensions: the segment is read as the image, as
        // thumbor's pattern would fail to match them as dimensions there too.
        #expect((try? ThumborURL(path: "/unsafe/99999999999999999999x1/a.jpg"))?.source == "http://99999999999999999999x1/a.jpg")
    }

    /// docs/thumbor.md's filter table is the declarations' (``ThumborFilter/documentationTable``).
    /// `LOUPE_WRITE_OPTIONS_TABLE=1` rewrites the page's table from them instead.
    @Test func filterTableIsTheDeclarations() throws {
        let page = Corpus.repositoryRoot.appendingPathComponent("docs/thumbor.md")
        let text = try String(contentsOf: page, encoding: .utf8)
        var lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("| filter | Loupe |") })
        let table = lines[start...].prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        if ProcessInfo.processInfo.environment["LOUPE_WRITE_OPTIONS_TABLE"] == "1" {
            let end = lines[start...].firstIndex { !$0.hasPrefix("|") } ?? lines.endIndex
            lines.replaceSubrange(start..<end, with: ThumborFilter.documentationTable.components(separatedBy: "\n"))
            try lines.joined(separator: "\n").write(to: page, atomically: true, encoding: .utf8)
            return
        }
        #expect(table == ThumborFilter.documentationTable, "docs/thumbor.md's filter table should be:\n\(ThumborFilter.documentationTable)")
    }

    /// An animation's frames share one plan, and a `fill` canvas that many frames would multiply
    /// past the limit is refused before any frame is made.
    @Test func framesShareOnePlanWithinTheLimit() throws {
        let frame = try Bitmap(width: 40, height: 20, pixels: [UInt8](repeating: 200, count: 40 * 20 * 4))
        var geometry = try #require(try ThumborURL(path: "/unsafe/trim/10x10/a.gif").options.thumbor)
        let step = ThumborGeometryStep(geometry: geometry, rotate: 0, filters: [], resultLimit: 100)
        let frames = try step.process(frames: [frame, frame, frame])
        #expect(frames.map { [$0.width, $0.height] } == [[10, 10], [10, 10], [10, 10]])
        geometry = try #require(try ThumborURL(path: "/unsafe/fit-in/100x100/filters:fill(red)/a.gif").options.thumbor)
        let filled = ThumborGeometryStep(geometry: geometry, rotate: 0, filters: [], resultLimit: 100)
        #expect(try filled.process(frames: [frame]).map { [$0.width, $0.height] } == [[100, 100]])
        #expect(throws: ProcessingError.self) { try filled.process(frames: [Bitmap]((0..<3).map { _ in frame })) }
    }
}

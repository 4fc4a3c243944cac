import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// SVG documents from Debian's packages (Scripts/fetch-corpus.sh, svg/), drawn by the decoder
/// against `rsvg-convert`'s PNG of the same file at 96 DPI (svg/reference/), at their own size
/// and at a fraction of it; and the decoder's refusals: bombs, sizeless documents, references
/// outside the document.
@Suite struct SVGDecoderTests {
    /// The largest per-channel difference from rsvg-convert allowed: both draw with the same
    /// librsvg and cairo; rsvg-convert's PNG writer unpremultiplies as the decoder does.
    static let tolerance = 1
    /// The scale of the reduced references (`rsvg-convert --zoom`).
    static let zoom = 0.37

    @Test func corpusMatchesRsvgConvert() throws {
        let files = try Corpus.files(in: "svg", suffixes: [".svg"])
        #expect(files.count >= 20, "\(files.count) SVG files")
        for path in files {
            let data = try Corpus.data(path)
            #expect(ImageFormat(sniffing: data) == .svg, "\(path)")
            let name = (path as NSString).lastPathComponent
            let reference = try PNGDecoder().decode(Corpus.data("svg/reference/\(name).png"), options: DecodingOptions()).bitmap
            let metadata = try ImageDecoder().metadata(of: data)
            #expect(metadata.format == .svg && metadata.width == reference.width && metadata.height == reference.height,
                    "\(path): \(metadata.width)x\(metadata.height), rsvg-convert \(reference.width)x\(reference.height)")
            let image = try ImageDecoder().decode(data)
            try #require(image.bitmap.width == reference.width && image.bitmap.height == reference.height, "\(path)")
            let difference = PixelDifference(Self.visible(image.bitmap), Self.visible(reference))
            #expect(difference.maximum <= Self.tolerance, "\(path): maximum difference \(difference.maximum)")
        }
    }

    /// Drawn at a share of its size, a document is drawn at that size (not drawn whole and
    /// shrunk): the pixels are rsvg-convert's at the same zoom.
    @Test func scaledRenderMatchesRsvgConvertAtTheSameZoom() throws {
        let files = try Corpus.files(in: "svg", suffixes: [".svg"])
        for path in files {
            let name = (path as NSString).lastPathComponent
            let data = try Corpus.data(path)
            let reference = try PNGDecoder().decode(Corpus.data("svg/reference/\(name).zoom.png"), options: DecodingOptions()).bitmap
            let image = try SVGDecoder().decode(data, options: DecodingOptions(minimumScale: Self.zoom))
            try #require(image.bitmap.width == reference.width && image.bitmap.height == reference.height,
                         "\(path): \(image.bitmap.width)x\(image.bitmap.height), rsvg-convert \(reference.width)x\(reference.height)")
            let difference = PixelDifference(Self.visible(image.bitmap), Self.visible(reference))
            #expect(difference.maximum <= Self.tolerance, "\(path): maximum difference \(difference.maximum)")
            // The header still gives the document's own size.
            let header = try SVGDecoder().metadata(of: data)
            #expect(image.metadata == header)
        }
    }

    /// The size a decode needs: the larger of a thumbnail's longest side and a minimum scale,
    /// never above the document's own size.
    @Test func rendersAtTheSizeTheCallerNeeds() throws {
        let document = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="400" height="100"><rect width="400" height="100" fill="\#u{23}f00"/></svg>"#.utf8)
        let cases: [(DecodingOptions, Int, Int)] = [
            (DecodingOptions(), 400, 100),
            (DecodingOptions(maxPixelSize: 100), 100, 25),
            (DecodingOptions(maxPixelSize: 1000), 400, 100),
            (DecodingOptions(minimumScale: 0.5), 200, 50),
            (DecodingOptions(maxPixelSize: 100, minimumScale: 0.5), 200, 50),
            (DecodingOptions(maxPixelSize: 300, minimumScale: 0.5), 300, 75),
            (DecodingOptions(minimumScale: 1), 400, 100),
            (DecodingOptions(minimumScale: 0.001), 1, 1),
        ]
        for (options, width, height) in cases {
            let bitmap = try SVGDecoder().decode(document, options: options).bitmap
            #expect(bitmap.width == width && bitmap.height == height, "\(options): \(bitmap.width)x\(bitmap.height)")
            // A pixel the red rectangle covers whole (the 1×1 render covers a sliver of one).
            if width > 1 { #expect(Array(bitmap.pixels[0..<4]) == [255, 0, 0, 255]) }
        }
    }

    /// Physical units at 96 DPI (imgproxy 4's and the CSS pixel), fractional sizes rounded up,
    /// and a viewBox alone as the size.
    @Test func sizesFollowTheDeclaration() throws {
        let cases: [(String, Int, Int)] = [
            (#"width="2in" height="1in""#, 192, 96),
            (#"width="72pt" height="2.54cm""#, 96, 96),
            (#"width="10.2" height="5.5""#, 11, 6),
            (#"viewBox="0 0 300 150""#, 300, 150),
            (#"width="100%" height="100%" viewBox="10 10 40 20""#, 40, 20),
        ]
        for (attributes, width, height) in cases {
            let document = Data(#"<svg xmlns="http://www.w3.org/2000/svg" \#(attributes)/>"#.utf8)
            let metadata = try SVGDecoder().metadata(of: document)
            #expect(metadata.width == width && metadata.height == height, "\(attributes): \(metadata.width)x\(metadata.height)")
        }
        #expect(throws: ImageCodecError.self) { try SVGDecoder().metadata(of: Data(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)) }
    }

    /// A document declaring 100,000×100,000 (by its size or its viewBox) is refused from the
    /// declaration, before a pixel exists; at a scale that would draw it small, too.
    @Test func bombsAreRefusedFromTheDeclaredSize() throws {
        let limit = DecodingLimits().maxPixelCount
        for attributes in [#"width="100000" height="100000""#, #"viewBox="0 0 100000 100000""#, #"width="1041.7in" height="1041.7in""#] {
            let document = Data(#"<svg xmlns="http://www.w3.org/2000/svg" \#(attributes)><rect width="10" height="10"/></svg>"#.utf8)
            #expect(throws: ImageCodecError.self, "\(attributes)") {
                try ImageDecoder().decode(document, options: DecodingOptions(minimumScale: 0.001))
            }
        }
        #expect(throws: ImageCodecError.pixelLimitExceeded(width: 100_000, height: 100_000, limit: limit)) {
            try ImageDecoder().decode(Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="100000" height="100000"/>"#.utf8))
        }
        let huge = Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="1e300" height="1e300"/>"#.utf8)
        #expect(throws: ImageCodecError.self) { try ImageDecoder().decode(huge) }
    }

    /// Nothing outside the document is read: an `image` naming a file on this machine (a real
    /// red PNG) or a loopback URL draws nothing, where the same PNG embedded as a data: URL
    /// draws red.
    @Test func readsNothingOutsideTheDocument() throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let red = try ImageEncoder().encode(Bitmap(width: 4, height: 4, pixels: Array(repeating: [255, 0, 0, 255], count: 16).flatMap { $0 }),
                                            as: .png)
        let file = folder.url.appendingPathComponent("red.png")
        try red.write(to: file)
        let outside = [file.absoluteString, file.path, "red.png", "http://127.0.0.1:9/red.png"]
        for reference in outside {
            let document = #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><image href="\#(reference)" width="4" height="4"/></svg>"#
            let bitmap = try SVGDecoder().decode(Data(document.utf8), options: DecodingOptions()).bitmap
            #expect(bitmap.pixels.allSatisfy { $0 == 0 }, "\(reference) was drawn")
        }
        let embedded = #"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><image href="data:image/png;base64,\#(red.base64EncodedString())" width="4" height="4"/></svg>"#
        let bitmap = try SVGDecoder().decode(Data(embedded.utf8), options: DecodingOptions()).bitmap
        #expect(Array(bitmap.pixels[0..<4]) == [255, 0, 0, 255])
    }

    @Test func sniffsSVGByItsRootElement() {
        #expect(ImageFormat(sniffing: Array(#"<svg xmlns="http://www.w3.org/2000/svg"/>"#.utf8)) == .svg)
        let prolog = "\u{FEFF}<?xml version=\"1.0\"?>\n<!-- " + String(repeating: "x", count: 2_000) + " -->\n"
            + #"<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">"#
            + #"<svg:svg xmlns:svg="http://www.w3.org/2000/svg"></svg:svg>"#
        #expect(ImageFormat(sniffing: Array(prolog.utf8)) == .svg)
        #expect(ImageFormat(sniffing: Array("<!DOCTYPE html><html><svg></svg></html>".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("<?xml version=\"1.0\"?><feed/>".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("hello <svg/>".utf8)) == nil)
        let late = "<!-- " + String(repeating: "x", count: ImageFormat.svgSniffingLimit) + " --><svg/>"
        #expect(ImageFormat(sniffing: Array(late.utf8)) == nil)
    }

    /// `bitmap` with the colour of fully transparent pixels cleared (nothing shows it).
    static func visible(_ bitmap: Bitmap) -> Bitmap { LegacyFormatTests.visible(bitmap) }
}

import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy keeps a source's colour space (its processing/colorspace_test.go): a grey source's
/// result is grey in PNG, JPEG and TIFF, with alpha where the source has it, unless processing
/// adds colour (a coloured watermark, a background that is not grey); a colour source's stays
/// colour. Without `preserve_hdr`, a 16-bit source gives 8-bit grey or RGB, as imgproxy's;
/// with it, 16 bits in PNG (`SixteenBitResultTests`). Sources from the corpus (PngSuite, Go's and
/// x/image's test files: Scripts/fetch-corpus.sh); each result's colour type and depth read
/// from its header.
@Suite struct GreyResultTests {
    /// The corpus files, by the path the origin serves them at.
    static let sources: [String: String] = [
        "/grey8.png": "go-png/pngsuite/basn0g08.png", "/grey16.png": "go-png/pngsuite/basn0g16.png",
        "/grey-alpha.png": "go-png/pngsuite/basn4a08.png", "/rgb16.png": "go-png/pngsuite/basn2c16.png",
        "/rgb8.png": "go-png/pngsuite/basn2c08.png", "/grey.jpg": "go-image/video-005.gray.jpeg",
        "/grey.tiff": "legacy/video-001-gray.tiff", "/grey16.tiff": "legacy/video-001-gray-16bit.tiff",
    ]

    /// A PNG's bit depth and colour type from its IHDR (type 0 grey, 2 RGB, 4 grey with alpha,
    /// 6 RGBA); empty for anything else.
    static func pngHeader(_ data: Data) -> [Int] {
        guard data.count > 25, ImageFormat(sniffing: data) == .png else { return [] }
        return [Int(data[data.startIndex + 24]), Int(data[data.startIndex + 25])]
    }

    /// Whether libjpeg or libtiff reads `data`'s header as grey (one component; MinIsBlack).
    static func isGrey(_ data: Data) throws -> Bool { try ImageDecoder().metadata(of: data).isGrey }

    static func withServer(_ settings: ServerSettings = testSettings(),
                           _ body: @escaping @Sendable (RoutedServer, (String) -> String) async throws -> Void) async throws {
        try await withServer(files: try Self.sources.mapValues { try Corpus.data($0) }, settings, body)
    }

    /// A server (its watermark loaded) beside an origin serving `files` by path; `body` gets the
    /// server and the origin's URL for a path.
    static func withServer(files: [String: Data], _ settings: ServerSettings = testSettings(),
                           _ body: @escaping @Sendable (RoutedServer, (String) -> String) async throws -> Void) async throws {
        try await OriginServer.run(handler: { request in files[request.path].map { OriginResponse.ok($0) } ?? .status(404) }) { origin in
            try await RoutedServer.with(settings) { server async throws in
                try await server.server.reloadWatermark()
                try await body(server) { origin.url($0).absoluteString }
            }
        }
    }

    static func image(_ server: RoutedServer, _ options: String, _ source: String, _ format: ImageFormat) async throws -> Data {
        let answer = try await server.request(insecurePath(options, source, extension: format.rawValue))
        #expect(answer.status == 200, "\(options) \(source) \(format): \(String(decoding: answer.body, as: UTF8.self))")
        #expect(ImageFormat(sniffing: answer.body) == format)
        return answer.body
    }

    @Test func greySourcesGiveGreyResults() async throws {
        try await Self.withServer { server, url async throws in
            let fill = "rs:fill:20:20/el:1"
            // imgproxy's 8-bpp-grayscale-png-bw, 16-bpp-grayscale-png-bw (without preserve_hdr),
            // 8-bpp-grayscale-tiff-bw, 16-bpp-grayscale-tiff-bw.
            for source in ["/grey8.png", "/grey16.png", "/grey.tiff", "/grey16.tiff", "/grey.jpg"] {
                let png = try await Self.image(server, fill, url(source), .png)
                #expect(Self.pngHeader(png) == [8, 0], "\(source)")
                // 16-bpp-grayscale-png-jpeg-bw.
                #expect(try Self.isGrey(try await Self.image(server, fill, url(source), .jpeg)), "\(source)")
                #expect(try Self.isGrey(try await Self.image(server, fill, url(source), .tiff)), "\(source)")
            }
            // The 16-bit sources with preserve_hdr: 16 bits, grey staying grey (16-bpp-grayscale-png-grey16,
            // 16-bpp-png-rgb16, 16-bpp-grayscale-tiff-grey16); the PNGs' gAMA 1.0 converted at 16 bits.
            #expect(Self.pngHeader(try await Self.image(server, fill + "/ph:1", url("/grey16.png"), .png)) == [16, 0])
            #expect(Self.pngHeader(try await Self.image(server, fill + "/ph:1", url("/rgb16.png"), .png)) == [16, 2])
            #expect(Self.pngHeader(try await Self.image(server, fill + "/ph:1", url("/grey16.tiff"), .png)) == [16, 0])
            // Colour sources stay colour: 8-bpp-png-srgb, 16-bpp-png-srgb.
            for source in ["/rgb8.png", "/rgb16.png"] {
                #expect(Self.pngHeader(try await Self.image(server, fill, url(source), .png)) == [8, 2], "\(source)")
                #expect(try !Self.isGrey(try await Self.image(server, fill, url(source), .jpeg)), "\(source)")
            }
            // WebP has no grey mode: a grey source's WebP is an ordinary one.
            _ = try await Self.image(server, fill, url("/grey8.png"), .webp)
        }
    }

    /// Grey with alpha stays grey with alpha in PNG and TIFF; JPEG flattens it onto white, still
    /// grey; a grey background keeps it grey, a coloured one makes it colour (imgproxy's flatten
    /// turns the image to sRGB for a background that is not grey).
    @Test func greyWithAlphaAndBackgrounds() async throws {
        try await Self.withServer { server, url async throws in
            let source = url("/grey-alpha.png")
            #expect(Self.pngHeader(try await Self.image(server, "w:20", source, .png)) == [8, 4])
            let tiff = try await Self.image(server, "w:20", source, .tiff)
            #expect(try Self.isGrey(tiff))
            #expect(try ImageDecoder().decode(tiff).bitmap.hasTransparency)
            #expect(try Self.isGrey(try await Self.image(server, "w:20", source, .jpeg)))
            #expect(Self.pngHeader(try await Self.image(server, "w:20/bg:808080", source, .png)) == [8, 0])
            #expect(Self.pngHeader(try await Self.image(server, "w:20/bg:ff0000", source, .png)) == [8, 2])
            #expect(try !Self.isGrey(try await Self.image(server, "w:20/bg:ff0000", source, .jpeg)))
            // Even where the background shows nowhere: the rule is imgproxy's, by colour space.
            #expect(Self.pngHeader(try await Self.image(server, "w:20/bg:ff0000", url("/grey8.png"), .png)) == [8, 2])
        }
    }

    /// A coloured watermark makes a grey source's result colour; a grey one keeps it grey
    /// (imgproxy's 8-bpp-grayscale-wm-16-bpp-grayscale-bw and 16-bpp-grayscale-wm-8-bpp-rgb16).
    @Test func watermarksKeepOrAddColour() async throws {
        for (mark, colorType) in [("go-png/pngsuite/basn2c08.png", 2), ("go-png/pngsuite/basn0g16.png", 0)] {
            var settings = testSettings()
            settings.watermark = .data(try Corpus.data(mark))
            try await Self.withServer(settings) { server, url async throws in
                let png = try await Self.image(server, "rs:fill:40:40/el:1/wm:1:ce", url("/grey8.png"), .png)
                #expect(Self.pngHeader(png) == [8, colorType], "\(mark)")
            }
        }
    }
}

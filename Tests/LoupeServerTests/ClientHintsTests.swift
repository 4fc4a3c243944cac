import Foundation
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's client hints (`IMGPROXY_ENABLE_CLIENT_HINTS`) through the service's routes: a URL
/// without a width or `dpr` takes them from `Sec-CH-Width`/`Width` and `Sec-CH-DPR`/`DPR`, the
/// URL's own options win, every image answer says `Vary` with those headers, and with the setting
/// off the headers change nothing.
@Suite struct ClientHintsTests {
    /// A 400×200 JPEG at /photo.jpg, served while `body` runs with `settings` (hints read or not).
    static func serve(readingHints: Bool, _ body: @Sendable (RoutedServer, String) async throws -> Void) async throws {
        let photo = try TestImage.jpeg(width: 400, height: 200, seed: 9)
        try await OriginServer.run(handler: { request in request.path == "/photo.jpg" ? .ok(photo) : .status(404) }) { origin in
            var settings = testSettings()
            settings.readsClientHints = try ServerSettings(flags: [:], environment: ["IMGPROXY_ENABLE_CLIENT_HINTS": readingHints ? "true" : "false"])
                .readsClientHints
            try await RoutedServer.with(settings) { server in try await body(server, origin.url("/photo.jpg").absoluteString) }
        }
    }

    /// Expects the answer's width and `Vary` (`-` for none) to be `expected`, as `200 Accept, Sec-CH-DPR, …`.
    static func expect(_ server: RoutedServer, _ path: String, _ headers: [(String, String)], _ expected: String,
                       sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let answer = try await server.request(path, headers: headers)
        #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
        let width = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true)).metadata.width
        #expect("\(width) \(answer.header("Vary") ?? "-")" == expected, "\(path) \(headers)", sourceLocation: sourceLocation)
    }

    @Test func hintsSizeAURLThatNamesNoWidth() async throws {
        try await Self.serve(readingHints: true) { server, source in
            let vary = "Accept, Sec-CH-DPR, DPR, Sec-CH-Width, Width"
            let plain = "/insecure/plain/\(source)@png"
            // imgproxy's own cases: none, a width, a ratio, both (the width is in device pixels).
            try await Self.expect(server, plain, [], "400 \(vary)")
            try await Self.expect(server, plain, [("Width", "100")], "100 \(vary)")
            try await Self.expect(server, "/insecure/w:100/plain/\(source)@png", [("DPR", "2")], "200 \(vary)")
            try await Self.expect(server, plain, [("Sec-CH-Width", "100"), ("Sec-CH-DPR", "2")], "100 \(vary)")
            // The Sec-CH- names first; a value that does not parse, or a ratio over 8, is skipped.
            try await Self.expect(server, plain, [("Sec-CH-Width", "120"), ("Width", "60")], "120 \(vary)")
            try await Self.expect(server, plain, [("Sec-CH-Width", "wide"), ("Width", "60")], "60 \(vary)")
            try await Self.expect(server, "/insecure/w:100/plain/\(source)@png", [("DPR", "9")], "100 \(vary)")
            // The URL's own width and ratio win over the hints.
            try await Self.expect(server, "/insecure/width:150/dpr:3/plain/\(source)@png",
                                  [("Width", "100"), ("DPR", "2")], "400 \(vary)")
        }
    }

    @Test func withoutTheSettingHintsChangeNothing() async throws {
        try await Self.serve(readingHints: false) { server, source in
            try await Self.expect(server, "/insecure/plain/\(source)@png", [("Width", "100"), ("DPR", "2")], "400 Accept")
        }
    }
}

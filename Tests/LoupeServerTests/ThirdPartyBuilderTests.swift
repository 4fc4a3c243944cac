import Foundation
import LoupeCodecs
import LoupeServer
import LoupeTestSupport
import Testing

/// URLs made by a real third-party builder — the PyPI `imgproxy` package, in the conformance
/// venv — served by a real signed server from a real nginx on loopback: imgproxy's URL builders
/// work unchanged, and one changed byte of a signature is refused.
@Suite struct ThirdPartyBuilderTests {
    @Test func urlsFromThePythonBuilderAreServedAndATamperedSignatureIsNot() async throws {
        let nginx = try NginxServer.start(files: ["photo.jpg": try TestImage.jpeg(width: 300, height: 200, seed: 21)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.jpg").absoluteString
        let output = try await PythonReference.run("imgproxy_urls.py", arguments: ["0a1b2c3d", "aabbcc", source])
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        // The script's cases (fit 64×64; fill 40×30 with north-west gravity as PNG; auto 50
        // wide enlarged as WebP), each with q:70, as imgproxy would size them.
        let expected: [(format: ImageFormat, width: Int, height: Int)] = [(.jpeg, 64, 43), (.png, 40, 30), (.webp, 50, 33)]
        #expect(lines.count == expected.count)
        var settings = testSettings()
        settings.allowsUnsigned = false
        settings.keys = [.init(key: Data([0x0a, 0x1b, 0x2c, 0x3d]), salt: Data([0xaa, 0xbb, 0xcc]))]
        try await RoutedServer.with(settings) { server in
            for (line, expected) in zip(lines, expected) {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let path = try #require(object["path"] as? String)
                guard try await server.expectImage(path, format: expected.format, width: expected.width, height: expected.height) else { continue }
                try await server.expectForgedSignatureRefused(path)
            }
        }
        // Three images made, nothing fetched for the tampered URLs (the pipeline coalesces
        // the one source, so at most one download per distinct request).
        #expect(nginx.requestCount(for: "/photo.jpg") >= 1)
        #expect(nginx.requestCount(for: "/photo.jpg") <= 3)
    }
}

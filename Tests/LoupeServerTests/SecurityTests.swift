import Foundation
import LoupeCodecs
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// Allowed sources and the SSRF guard, on loopback only.
@Suite struct SecurityTests {
    /// With the guard on (nothing permitted), sources at 127.0.0.1 and at `localhost` are
    /// refused with 403 and the origin is never asked; with `--allow-private-networks` they
    /// are served.
    @Test func loopbackSourcesAreRefusedUnlessPrivateNetworksAreAllowed() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 6)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var guarded = ServerSettings()
            guarded.allowsUnsigned = true
            try await RoutedServer.with(guarded) { server in
                for source in ["http://127.0.0.1:\(origin.port)/a.jpg", "http://localhost:\(origin.port)/b.jpg"] {
                    let answer = try await server.request(insecurePath("w:10", source))
                    #expect(answer.status == 403, "\(source)")
                    #expect(answer.json["kind"] as? String == "forbiddenSource", "\(source)")
                }
            }
            #expect(origin.totalRequests == 0)
            var open = guarded
            open.addressPolicy = .init(allowsPrivateNetworks: true)
            try await RoutedServer.with(open) { server in
                for source in ["http://127.0.0.1:\(origin.port)/a.jpg", "http://localhost:\(origin.port)/b.jpg"] {
                    let answer = try await server.request(insecurePath("w:10", source))
                    #expect(answer.status == 200, "\(source)")
                }
            }
        }
    }

    /// A redirect from a permitted origin (127.0.0.1) to 127.0.0.2 is refused before the second
    /// hop connects; with private networks allowed, it is followed and served.
    @Test func redirectToAPrivateAddressIsRefused() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 7)
        try await OriginServer.run(host: "127.0.0.2", handler: { _ in .ok(photo) }) { hidden in
            try await OriginServer.run(handler: { _ in .status(302, headers: [("Location", hidden.url("/secret.jpg").absoluteString)]) }) { origin in
                try await RoutedServer.with(testSettings()) { server in
                    let answer = try await server.request(insecurePath("w:10", origin.url("/hop.jpg").absoluteString))
                    #expect(answer.status == 403)
                    #expect(answer.json["kind"] as? String == "forbiddenSource")
                }
                #expect(origin.requestCount(for: "/hop.jpg") == 1)
                #expect(hidden.totalRequests == 0)
                var open = testSettings()
                open.addressPolicy = .init(allowsPrivateNetworks: true)
                try await RoutedServer.with(open) { server in
                    let answer = try await server.request(insecurePath("w:10", origin.url("/hop.jpg").absoluteString))
                    #expect(answer.status == 200)
                }
                #expect(hidden.requestCount(for: "/secret.jpg") == 1)
            }
        }
    }

    @Test func allowedPrefixesKeepOutLookalikes() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 8)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var settings = testSettings()
            settings.sources = try SourcePolicy(allowedPrefixes: ["http://127.0.0.1:\(origin.port)/public/"])
            try await RoutedServer.with(settings) { server in
                let allowed = try await server.request(insecurePath("w:10", origin.url("/public/a.jpg").absoluteString))
                #expect(allowed.status == 200)
                for source in ["http://127.0.0.1:\(origin.port)/private/a.jpg",
                               "http://127.0.0.1:\(origin.port)@127.0.0.2:\(origin.port)/public/a.jpg",
                               "http://127.0.0.1:\(origin.port)/publicity/a.jpg"] {
                    let answer = try await server.request(insecurePath("w:10", source))
                    #expect(answer.status == 403, "\(source)")
                }
            }
        }
    }

    /// imgproxy's `*` in allowed sources, through a real server: one path segment, no more.
    @Test func allowedSourceWildcardsMatchOneSegment() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 8)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var settings = testSettings()
            settings.sources = try SourcePolicy(allowedPrefixes: ["http://127.0.0.1:\(origin.port)/users/*/public/"])
            try await RoutedServer.with(settings) { server in
                let allowed = try await server.request(insecurePath("w:10", origin.url("/users/ann/public/a.jpg").absoluteString))
                #expect(allowed.status == 200)
                for path in ["/users/ann/private/a.jpg", "/users/ann/x/public/a.jpg", "/users/public/a.jpg"] {
                    let answer = try await server.request(insecurePath("w:10", origin.url(path).absoluteString))
                    #expect(answer.status == 403, "\(path)")
                }
            }
        }
    }

    /// Signed servers refuse `insecure`; signatures made with either configured pair work.
    @Test func signedServerChecksEveryRequest() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 64, seed: 9)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var settings = testSettings()
            settings.allowsUnsigned = false
            settings.keys = [.init(key: Data([0x0a, 0x1b, 0x2c, 0x3d]), salt: Data([0xaa, 0xbb, 0xcc])),
                             .init(key: Data([1]), salt: Data([2]))]
            try await RoutedServer.with(settings) { server in
                let source = origin.url("/s.jpg").absoluteString
                #expect(try await server.request(insecurePath("w:10", source)).status == 403)
                // URLs from the PyPI imgproxy builder are served; one changed signature byte is refused.
                let output = try await PythonReference.run("imgproxy_urls.py", arguments: ["0a1b2c3d", "aabbcc", source])
                let paths = try String(decoding: output, as: UTF8.self).split(separator: "\n").map { line in
                    try #require((try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["path"] as? String)
                }
                #expect(paths.count == 3)
                let sizes = [(64, 64), (40, 30), (50, 50)]
                for (path, size) in zip(paths, sizes) {
                    let answer = try await server.request(path)
                    #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
                    let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
                    #expect((image.metadata.width, image.metadata.height) == size, "\(path)")
                    var bytes = Array(path.utf8)
                    bytes[3] = bytes[3] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
                    let tampered = try await server.request(String(decoding: bytes, as: UTF8.self))
                    #expect(tampered.status == 403)
                    #expect(tampered.json["kind"] as? String == "badSignature")
                }
                // The second pair signs too (key rotation).
                let path = "/w:10/plain/\(source)"
                let signature = URLSigner(pairs: [.init(key: Data([1]), salt: Data([2]))]).signature(for: path) ?? ""
                #expect(try await server.request("/\(signature)\(path)").status == 200)
            }
        }
    }
}

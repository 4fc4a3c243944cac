import Foundation
import LoupeCodecs
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// thumbor URLs through the service: signed by libthumbor (thumbor's own signer, PyPI) and
/// answered, forged or truncated signatures and unsafe URLs refused as the settings say, and
/// each dialect switched off on its own.
@Suite struct ThumborServingTests {
    static let key = "thumbor-test-key"

    static func settings() -> ServerSettings {
        var settings = testSettings()
        settings.allowsUnsigned = false
        settings.thumborSecurityKey = key
        return settings
    }

    @Test func urlsSignedByLibthumborAreServedAndForgedOnesAreNot() async throws {
        let nginx = try NginxServer.start(files: ["photo.jpg": try TestImage.jpeg(width: 300, height: 200, seed: 41)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.jpg").absoluteString
        let output = try await PythonReference.run("thumbor_urls.py", arguments: ["sign", Self.key, source])
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        // The script's cases as thumbor sizes them: 64×64 cut to the ratio; 40×30 as PNG; fit-in
        // 50×50 (50×33); the manual crop 200×100, then 100 wide (100×50).
        let expected: [(format: ImageFormat, width: Int, height: Int)] = [(.jpeg, 64, 64), (.png, 40, 30), (.jpeg, 50, 33), (.jpeg, 100, 50)]
        #expect(lines.count == expected.count)
        try await RoutedServer.with(Self.settings()) { server in
            for (line, expected) in zip(lines, expected) {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let path = try #require(object["path"] as? String)
                guard try await server.expectImage(path, format: expected.format, width: expected.width, height: expected.height) else { continue }
                try await server.expectForgedSignatureRefused(path)
                // The signature without its last character (or without its padding): 403 too.
                let slash = try #require(path.dropFirst().firstIndex(of: "/"))
                for cut in [1, 2] {
                    let truncated = String(path[..<path.index(slash, offsetBy: -cut)]) + String(path[slash...])
                    let answer = try await server.request(truncated)
                    #expect(answer.status == 403, "\(truncated)")
                }
                // Another image under the same signature.
                let moved = try await server.request(path.replacingOccurrences(of: "photo.jpg", with: "photo2.jpg"))
                #expect(moved.status == 403, "\(path) with another image")
            }
            // Unsafe URLs are off unless allowed.
            let unsafe = try await server.request("/unsafe/64x64/\(source)")
            #expect(unsafe.status == 403)
        }
        #expect(nginx.requestCount(for: "/photo.jpg") >= 1)
    }

    @Test func unsafeURLsAndEachDialectFollowTheSettings() async throws {
        let nginx = try NginxServer.start(files: ["photo.jpg": try TestImage.jpeg(width: 300, height: 200, seed: 42)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.jpg").absoluteString
        var settings = testSettings()
        settings.thumborAllowsUnsafe = true
        try await RoutedServer.with(settings) { server in
            let fitted = try await server.request("/unsafe/fit-in/100x100/\(source)")
            #expect(fitted.status == 200)
            let image = try ImageDecoder().decode(fitted.body, options: DecodingOptions(firstFrameOnly: true))
            #expect((image.metadata.width, image.metadata.height) == (100, 67))
            // Without a scheme, as thumbor's HTTP loader takes it; and percent-encoded.
            let bare = try await server.request("/unsafe/50x50/\(source.dropFirst("http://".count))")
            #expect(bare.status == 200)
            let encoded = try #require(source.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let quoted = try await server.request("/unsafe/50x50/\(encoded)")
            #expect(quoted.status == 200)
            #expect(quoted.body == bare.body)
            let imgproxy = try await server.request("/insecure/rs:fit:100:100/plain/\(source)")
            #expect(imgproxy.status == 200)
            // max_age: this result's Cache-Control, in place of the server's.
            let aged = try await server.request("/unsafe/50x50/filters:max_age(60)/\(source)")
            #expect(aged.headers["Cache-Control"].first == "public, max-age=60")
            #expect(fitted.headers["Cache-Control"].first == "public, max-age=\(ServerSettings().timeToLive)")
            // meta/: thumbor's JSON of the operations on this source.
            let meta = try await server.request("/unsafe/meta/100x100/\(source)")
            #expect(meta.status == 200)
            let thumbor = try #require(meta.json["thumbor"] as? [String: Any])
            let described = try #require(thumbor["source"] as? [String: Any])
            #expect(described["width"] as? Int == 300 && described["height"] as? Int == 200 && described["frameCount"] as? Int == 1)
            let operations = try #require(thumbor["operations"] as? [[String: Any]])
            #expect(operations.map { $0["type"] as? String } == ["crop", "resize"])
            #expect(operations.first.map { [$0["left"], $0["top"], $0["right"], $0["bottom"]].map { $0 as? Int } } == [50, 0, 250, 200])
            #expect(thumbor["target"] as? [String: Int] == ["width": 100, "height": 100])
            // A signed thumbor URL without a key configured.
            let signed = "/" + ThumborSigner(key: "k").signature(for: "50x50/\(source)") + "/50x50/\(source)"
            let answer1 = try await server.request(signed)
            #expect(answer1.status == 403, "\(answer1.body.count)")
        }
        // Each dialect switched off alone: its URLs are refused, the other's still served.
        for (thumbor, imgproxy, statuses) in [(false, true, (403, 200)), (true, false, (200, 400))] {
            settings.servesThumborURLs = thumbor
            settings.servesImgproxyURLs = imgproxy
            try await RoutedServer.with(settings) { server in
                let thumborAnswer = try await server.request("/unsafe/fit-in/100x100/\(source)")
                let imgproxyAnswer = try await server.request("/insecure/rs:fit:100:100/plain/\(source)")
                #expect((thumborAnswer.status, imgproxyAnswer.status) == statuses, "thumbor \(thumbor), imgproxy \(imgproxy)")
            }
        }
    }

    /// A thumbor URL that would enlarge and blur past the cost limit is refused from the source's
    /// header with 422, naming its filter, as imgproxy's URLs are (how soon is `BombTests`' to
    /// time, run alone); an ordinary fit-in is served.
    @Test func thumborURLsAreWeighedBeforeTheirWork() async throws {
        let nginx = try NginxServer.start(files: ["photo.jpg": try TestImage.jpeg(width: 640, height: 480, seed: 44)])
        defer { nginx.stop() }
        let source = nginx.url("/photo.jpg").absoluteString
        var settings = testSettings()
        settings.thumborAllowsUnsafe = true
        try await RoutedServer.with(settings) { server in
            let bomb = try await server.request("/unsafe/8000x8000/filters:blur(150)/\(source)")
            #expect(bomb.status == 422)
            #expect(bomb.json["kind"] as? String == "tooExpensive")
            #expect((bomb.json["message"] as? String ?? "").contains("'blur'"), "\(bomb.json)")
            let fitted = try await server.request("/unsafe/fit-in/80x80/\(source)")
            #expect(fitted.status == 200)
            let image = try ImageDecoder().metadata(of: fitted.body)
            #expect((image.width, image.height) == (80, 60))
        }
    }

    /// thumbor's variables are read below `LOUPE_*`'s, above imgproxy's; Loupe's default for
    /// unsafe URLs is off.
    @Test func thumborsVariablesAreRead() throws {
        #expect(ServerSettings().thumborAllowsUnsafe == false)
        let read = try ServerSettings(flags: [:], environment: ["THUMBOR_SECURITY_KEY": "abc", "THUMBOR_ALLOW_UNSAFE_URL": "True"])
        #expect(read.thumborSecurityKey == "abc")
        #expect(read.thumborAllowsUnsafe)
        let loupe = try ServerSettings(flags: [:], environment: ["THUMBOR_SECURITY_KEY": "abc", "LOUPE_THUMBOR_SECURITY_KEY": "def"])
        #expect(loupe.thumborSecurityKey == "def")
        #expect(throws: SettingsError.self) { try ServerSettings(flags: [:], environment: ["THUMBOR_ALLOW_UNSAFE_URL": "yes"]) }
    }
}

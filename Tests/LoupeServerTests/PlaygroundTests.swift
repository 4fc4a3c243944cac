import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The playground's endpoints, answered by the service's router: absent unless asked for (with or without a key),
/// its files with their content types and Content-Security-Policy, the menu's sections, and the
/// signer, whose signatures the service then accepts. The page itself is tested in a browser
/// (Scripts/ci/playground-test.py).
@Suite struct PlaygroundTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22a2e"

    static func signedSettings(playground: Bool) throws -> ServerSettings {
        var settings = try ServerSettings(flags: ["key": key, "salt": salt, "permit-addresses": "127.0.0.1"], environment: [:])
        settings.playground = playground
        settings.workers = 2
        return settings
    }

    static let playgroundPaths = ["/", "/playground/app.js", "/playground/placeholders.js", "/playground/style.css",
                                  "/playground/config.json", "/playground/menu/main"]

    @Test(arguments: [false, true])
    func offByDefaultEveryPathIs404AndNothingSigns(withKey: Bool) async throws {
        let settings = withKey ? try Self.signedSettings(playground: false) : testSettings()
        #expect(settings.playground == false)
        try await RoutedServer.with(settings) { server in
            for path in Self.playgroundPaths {
                let answer = try await server.request(path)
                #expect(answer.status == 404, "\(path)")
                #expect(answer.json["kind"] as? String == "notFound", "\(path)")
            }
            let sign = try await server.request("/playground/sign", method: .POST, body: Data("/rs:fit:10:10/plain/http://127.0.0.1/a.jpg".utf8))
            #expect(sign.status == 404)
            #expect(sign.json["signature"] == nil)
        }
    }

    @Test func filesHaveTheirTypesAndAStrictPolicy() async throws {
        var settings = testSettings()
        settings.playground = true
        try await RoutedServer.with(settings) { server in
            let types = ["/": "text/html; charset=utf-8", "/playground/app.js": "text/javascript; charset=utf-8",
                         "/playground/placeholders.js": "text/javascript; charset=utf-8", "/playground/style.css": "text/css; charset=utf-8"]
            for (path, type) in types {
                let answer = try await server.request(path)
                #expect(answer.status == 200, "\(path)")
                #expect(answer.header("Content-Type") == type, "\(path)")
                #expect(answer.header("X-Content-Type-Options") == "nosniff")
                let policy = try #require(answer.header("Content-Security-Policy"))
                #expect(policy.hasPrefix("default-src 'self'; script-src 'self'; style-src 'self';"))
                #expect(!policy.contains("unsafe-inline") && !policy.contains("unsafe-eval"))
                #expect(!answer.body.isEmpty)
            }
            // Scripts only from files (the policy would block inline ones anyway), none from elsewhere.
            let html = String(decoding: try await server.request("/").body, as: UTF8.self)
            let scripts = html.components(separatedBy: "<script").dropFirst()
            #expect(scripts.count == 2)
            #expect(scripts.allSatisfy { $0.hasPrefix(" src=\"playground/") && $0.contains("></script>") })
            #expect(!html.contains("src=\"http") && !html.contains("href=\"http") && !html.contains("style=\""))

            let head = try await server.request("/", method: .HEAD)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(try await server.request("/", method: .POST).status == 405)
            #expect(try await server.request("/playground/nothing.js").status == 404)

            let config = try await server.request("/playground/config.json").json
            #expect(config["signing"] as? String == "unsigned")
            #expect(config["photos"] as? [String] == [])
            // Unsigned: nothing to sign with, so the endpoint is not there.
            #expect(try await server.request("/playground/sign", method: .POST, body: Data("/x".utf8)).status == 404)
        }
    }

    @Test func menuSectionsAnswerAfterTheirLatencyOrFail() async throws {
        var settings = testSettings()
        settings.playground = true
        settings.playgroundSamples = PlaygroundSamples(menu: [
            .init(name: "soup", items: ["http://127.0.0.1:1/soup.jpg"], latency: .zero),
            .init(name: "side", items: [], latency: .milliseconds(20), fails: true),
        ])
        try await RoutedServer.with(settings) { server in
            let soup = try await server.request("/playground/menu/soup")
            #expect(soup.status == 200)
            #expect(soup.json["items"] as? [String] == ["http://127.0.0.1:1/soup.jpg"])
            let side = try await server.request("/playground/menu/side")
            #expect(side.status == 503)
            #expect(side.json["kind"] as? String == "sectionUnavailable")
            #expect(try await server.request("/playground/menu/dessert").status == 404)
            let config = try await server.request("/playground/config.json").json
            let menu = try #require(config["menu"] as? [[String: Any]])
            #expect(menu.map { $0["name"] as? String } == ["soup", "side"])
            #expect(menu.map { $0["count"] as? Int } == [1, 0])
        }
    }

    @Test func signerSignsWhatTheServiceThenAccepts() async throws {
        let photo = try TestImage.jpeg(width: 400, height: 300, seed: 8)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            try await RoutedServer.with(try Self.signedSettings(playground: true)) { server in
                #expect(try await server.request("/playground/config.json").json["signing"] as? String == "key")
                let path = "/rs:fit:100:100/plain/" + origin.url("/p.jpg").absoluteString + "@png"
                let signed = try await server.request("/playground/sign", method: .POST, body: Data(path.utf8))
                #expect(signed.status == 200)
                let signature = try #require(signed.json["signature"] as? String)
                let pair = try Self.signedSettings(playground: true).keys[0]
                #expect(signature == URLSigner(pairs: [pair]).signature(for: path))
                let image = try await server.request("/" + signature + path)
                #expect(image.status == 200)
                let decoded = try ImageDecoder().decode(image.body, options: DecodingOptions(firstFrameOnly: true))
                #expect((decoded.metadata.width, decoded.metadata.height) == (100, 75))
                // A batch body signed the same way is authorised.
                let body = Data("[\"\(origin.url("/p.jpg").absoluteString)\"]".utf8)
                let batchSignature = try #require(try await server.request("/playground/sign", method: .POST, body: body).json["signature"] as? String)
                let batch = try await server.request("/batch", method: .POST, headers: [("X-Signature", batchSignature)], body: body)
                #expect(batch.status == 200)
                #expect(String(decoding: batch.body, as: UTF8.self).contains("\"ok\":true"))
                // What the signer refuses: too much, or not text.
                let tooMuch = Data(repeating: 0x61, count: ServiceEndpoints.largestSignedBody + 1)
                let large = try await server.request("/playground/sign", method: .POST, body: tooMuch)
                #expect(large.status == 413)
                let binary = try await server.request("/playground/sign", method: .POST, body: Data([0xFF, 0xFE, 0x00]))
                #expect(binary.status == 400)
                #expect(try await server.request("/playground/sign").status == 405)
            }
        }
    }

    /// An app mounting the playground under a prefix: the page at the prefix, its files below.
    @Test func mountsUnderAnAppsPrefix() async throws {
        var settings = testSettings()
        settings.playground = true
        let images = try ImageRoutes(settings: settings, logger: Logger(label: "test"))
        let router = Router()
        images.add(to: router, atPath: "/images", endpoints: [.images, .playground])
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/images/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let script = try await client.execute(uri: "/images/playground/app.js", method: .get)
            #expect(script.status == .ok)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
        }
        // Mounted without `.playground`: the same paths are the service's 404.
        let plain = try ImageRoutes(settings: settings, logger: Logger(label: "test"))
        let otherRouter = Router()
        plain.add(to: otherRouter, atPath: "/images")
        try await Application(router: otherRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0))).test(.router) { client in
            let page = try await client.execute(uri: "/images/", method: .get)
            #expect(page.status == .notFound)
            let config = try await client.execute(uri: "/images/playground/config.json", method: .get)
            #expect(config.status == .notFound)
        }
    }
}

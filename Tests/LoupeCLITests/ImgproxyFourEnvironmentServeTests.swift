import Foundation
import LoupeCodecs
import LoupeServer
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// imgproxy 4's settings for how URLs are made and answered, in one environment file that starts
/// `loupe serve`, with paths from the PyPI `imgproxy` builder: each setting does what imgproxy's
/// documentation says it does.
@Suite struct ImgproxyFourEnvironmentServeTests {
    static let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
    static let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"

    /// The builder's path for `spec` (its own parameters, see Scripts/conformance/imgproxy_url.py),
    /// signed with the suite's key and salt, the signature cut to 8 bytes.
    static func builderPath(_ spec: [String: Any]) async throws -> String {
        var spec = spec
        spec["signature_size"] = 8
        let json = String(decoding: try JSONSerialization.data(withJSONObject: spec, options: [.sortedKeys]), as: UTF8.self)
        let output = try await PythonReference.run("imgproxy_url.py", arguments: [key, salt, json])
        return String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func imgproxyFourURLSettingsFromAnEnvironmentFile() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let root = folder.path("images")
        try FileManager.default.createDirectory(atPath: root + "/albums", withIntermediateDirectories: true)
        try TestImage.jpeg(width: 300, height: 200, seed: 21).write(to: URL(fileURLWithPath: root + "/photo.jpg"))
        try TestImage.jpeg(width: 120, height: 240, seed: 22).write(to: URL(fileURLWithPath: root + "/albums/beach.jpg"))
        let file = """
            IMGPROXY_KEY=\(Self.key)
            IMGPROXY_SALT=\(Self.salt)
            IMGPROXY_SIGNATURE_SIZE=8
            IMGPROXY_BIND=127.0.0.1:0
            IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(root)
            IMGPROXY_PATH_PREFIX=/img
            IMGPROXY_BASE_URL=local:///
            IMGPROXY_URL_REPLACEMENTS=gallery:///=local:///albums/
            IMGPROXY_ALLOWED_PROCESSING_OPTIONS=g,rs,q,f
            IMGPROXY_ALLOW_ORIGIN=https://app.example.com
            IMGPROXY_AUTO_WEBP=false
            IMGPROXY_ENABLE_CLIENT_HINTS=true
            IMGPROXY_USE_ETAG=true
            IMGPROXY_ETAG_BUSTER=v9
            """
        let child = try ServeProcess([], environment: ImgproxyEnvironmentServeTests.environment(fromFile: file))
        defer { child.kill() }
        let port = try await child.port()
        func get(_ path: String, _ headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: Data) {
            try await ImgproxyEnvironmentServeTests.get(port: port, path: path, headers: headers)
        }

        // A relative source gets the base URL; the path sits under the prefix; the 8-byte
        // signature is the one accepted; CORS names the allowed origin.
        let photo = try await Self.builderPath(["source": "photo.jpg", "width": 64, "height": 64, "resizing_type": "fit", "extension": "png"])
        let answer = try await get("/img" + photo)
        #expect(answer.status == 200, "\(photo): \(String(decoding: answer.body, as: UTF8.self))")
        if answer.status == 200 {
            let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
            #expect(image.metadata.format == .png)
            #expect((image.metadata.width, image.metadata.height) == (64, 43))
        }
        #expect(answer.headers["access-control-allow-origin"] == "https://app.example.com")
        // No format negotiation (imgproxy's default, restored by IMGPROXY_AUTO_WEBP=false), so
        // `Vary` names only the client hints' headers, and `Accept` changes no format. The
        // builder always writes `rs`, whose width (0 here) is the URL's own and wins over a
        // `Width` hint, as in imgproxy.
        #expect(answer.headers["vary"] == "Sec-CH-DPR, DPR, Sec-CH-Width, Width")
        let hinted = try await Self.builderPath(["source": "photo.jpg", "width": 0, "height": 0, "resizing_type": "fit", "extension": "jpg"])
        let hintedAnswer = try await get("/img" + hinted, ["Width": "90", "Accept": "image/webp,*/*"])
        #expect(hintedAnswer.status == 200, "\(String(decoding: hintedAnswer.body, as: UTF8.self))")
        if hintedAnswer.status == 200 {
            let image = try ImageDecoder().decode(hintedAnswer.body, options: DecodingOptions(firstFrameOnly: true))
            #expect(image.metadata.format == .jpeg)
            #expect((image.metadata.width, image.metadata.height) == (300, 200))
        }
        // The same path outside the prefix is not an image URL.
        #expect(try await get(photo).status == 404)
        // A full-length signature is not an 8-byte one.
        let full = try await PythonReference.run("imgproxy_urls.py", arguments: [Self.key, Self.salt, "photo.jpg"])
        let fullLine = try #require(String(decoding: full, as: UTF8.self).split(separator: "\n").first)
        let fullObject = try #require(try JSONSerialization.jsonObject(with: Data(fullLine.utf8)) as? [String: Any])
        let fullAnswer = try await get("/img" + (try #require(fullObject["path"] as? String)))
        #expect(fullAnswer.status == 403, "\(String(decoding: fullAnswer.body, as: UTF8.self))")

        // The replacement maps the `gallery:///` scheme into the local root's album folder.
        let beach = try await Self.builderPath(["source": "gallery:///beach.jpg", "width": 60, "height": 60, "resizing_type": "fit", "extension": "jpg"])
        let beachAnswer = try await get("/img" + beach)
        #expect(beachAnswer.status == 200, "\(beach): \(String(decoding: beachAnswer.body, as: UTF8.self))")
        if beachAnswer.status == 200 {
            let image = try ImageDecoder().decode(beachAnswer.body, options: DecodingOptions(firstFrameOnly: true))
            #expect((image.metadata.width, image.metadata.height) == (30, 60))
        }

        // imgproxy 4's ETag: the source's own (a local file's, from its version) behind the
        // buster; a client's copy with it is answered 304 before any work, one without it is not.
        let etag = try #require(beachAnswer.headers["etag"])
        #expect(etag.hasPrefix("\"v9/"))
        #expect(beachAnswer.headers["last-modified"] != nil)
        let revalidated = try await get("/img" + beach, ["If-None-Match": etag])
        #expect(revalidated.status == 304)
        #expect(revalidated.headers["etag"] == etag)
        #expect(try await get("/img" + beach, ["If-None-Match": "\"v8/" + etag.dropFirst(4)]).status == 200)

        // An option outside the allowed list is refused, whatever it would do.
        let blurred = try await Self.builderPath(["source": "photo.jpg", "width": 64, "height": 64, "resizing_type": "fit", "advanced": ["bl:2"]])
        let refused = try await get("/img" + blurred)
        #expect(refused.status == 403, "\(String(decoding: refused.body, as: UTF8.self))")
        #expect(String(decoding: refused.body, as: UTF8.self).contains("forbiddenOption"))

        child.signal(SIGTERM)
        #expect(try await child.waitForExit(timeout: .seconds(30)) == 0)
    }
}

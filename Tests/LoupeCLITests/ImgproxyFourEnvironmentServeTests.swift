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

    /// imgproxy 4's settings for sources, formats and failures in a second environment file:
    /// wildcard allowed sources, an enforced WebP at its own default quality and a negotiated
    /// AVIF, embedded thumbnails, stored orientation, 16-bit results, the source's
    /// Last-Modified, and a fallback image with its status and lifetime.
    @Test func imgproxyFourSourceAndFormatSettingsFromAnEnvironmentFile() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let root = folder.path("images")
        try FileManager.default.createDirectory(atPath: root + "/albums", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/private", withIntermediateDirectories: true)
        try TestImage.jpeg(width: 300, height: 200, seed: 23).write(to: URL(fileURLWithPath: root + "/albums/beach.jpg"))
        try TestImage.jpeg(width: 300, height: 200, seed: 24).write(to: URL(fileURLWithPath: root + "/private/secret.jpg"))
        // The corpus's coffee photo (600×400) as HEIC with a 320×212 thumbnail item.
        try Corpus.data("formats/coffee-thumbnail.heic").write(to: URL(fileURLWithPath: root + "/albums/coffee.heic"))
        let fallback = try ImageEncoder().encode(try Bitmap(width: 40, height: 20, pixels: [UInt8](repeating: 255, count: 40 * 20 * 4)), as: .png)
        // A 16-bit PNG whose samples are not multiples of 257 (no 8-bit value widens to them).
        let deep = try Bitmap(width: 8, height: 8, deepSamples: (0..<64).flatMap { _ in [UInt16(1000), 30001, 50003, 65535] })
        try ImageEncoder(embedsSRGBProfile: false, keepsDeepSamples: true).encode(deep, as: .png)
            .write(to: URL(fileURLWithPath: root + "/albums/deep.png"))
        // Stored 640×428 with EXIF orientation 6 (upright 428×640).
        try Corpus.data("gdk-pixbuf/bug725582-testrotate.jpg").write(to: URL(fileURLWithPath: root + "/albums/turned.jpg"))
        let file = """
            IMGPROXY_KEY=\(Self.key)
            IMGPROXY_SALT=\(Self.salt)
            IMGPROXY_SIGNATURE_SIZE=8
            IMGPROXY_BIND=127.0.0.1:0
            IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(root)
            IMGPROXY_ALLOWED_SOURCES=local:///al*/
            IMGPROXY_ENFORCE_WEBP=true
            IMGPROXY_AUTO_AVIF=true
            IMGPROXY_AUTO_ROTATE=false
            IMGPROXY_PRESERVE_HDR=true
            IMGPROXY_FORMAT_QUALITY=webp=40
            IMGPROXY_ENFORCE_THUMBNAIL=true
            IMGPROXY_USE_LAST_MODIFIED=true
            IMGPROXY_FALLBACK_IMAGE_DATA=\(fallback.base64EncodedString())
            IMGPROXY_FALLBACK_IMAGE_HTTP_CODE=404
            IMGPROXY_FALLBACK_IMAGE_TTL=60
            """
        let child = try ServeProcess([], environment: ImgproxyEnvironmentServeTests.environment(fromFile: file))
        defer { child.kill() }
        let port = try await child.port()
        func get(_ path: String, _ headers: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: Data) {
            try await ImgproxyEnvironmentServeTests.get(port: port, path: path, headers: headers)
        }
        func decoded(_ body: Data) throws -> ImageMetadata {
            try ImageDecoder().decode(body, options: DecodingOptions(firstFrameOnly: true)).metadata
        }

        // Enforced WebP for a client that takes it, over the URL's JPEG, at FORMAT_QUALITY's
        // webp=40 (smaller than the same answer at q:79); JPEG for one that does not.
        let beach = try await Self.builderPath(["source": "local:///albums/beach.jpg", "width": 150, "height": 150, "resizing_type": "fit", "extension": "jpg"])
        let webp = try await get(beach, ["Accept": "image/webp,*/*"])
        #expect(webp.status == 200, "\(String(decoding: webp.body, as: UTF8.self))")
        #expect(try decoded(webp.body).format == .webp)
        #expect((try decoded(webp.body).width, try decoded(webp.body).height) == (150, 100))
        #expect(webp.headers["vary"] == "Accept")
        #expect(webp.headers["last-modified"] != nil)
        let finer = try await Self.builderPath(["source": "local:///albums/beach.jpg", "width": 150, "height": 150, "resizing_type": "fit",
                                                "extension": "jpg", "advanced": ["q:79"]])
        let finerAnswer = try await get(finer, ["Accept": "image/webp,*/*"])
        #expect(try decoded(finerAnswer.body).format == .webp)
        #expect(webp.body.count < finerAnswer.body.count, "\(webp.body.count) bytes at webp=40, \(finerAnswer.body.count) at q:79")
        #expect(try decoded(try await get(beach).body).format == .jpeg)

        // Without a format in the URL, AVIF for a client that takes it (negotiated, over the
        // enforced WebP, as imgproxy orders them).
        let plain = try await Self.builderPath(["source": "local:///albums/beach.jpg", "width": 150, "height": 150, "resizing_type": "fit"])
        let avif = try await get(plain, ["Accept": "image/avif,image/webp,*/*"])
        #expect(try decoded(avif.body).format == .avif)
        #expect(avif.headers["vary"] == "Accept")
        // Sources keep their stored orientation; a 16-bit PNG keeps its 16 bits as PNG.
        let turned = try await Self.builderPath(["source": "local:///albums/turned.jpg", "width": 0, "height": 0, "resizing_type": "fit", "extension": "png"])
        #expect((try decoded(try await get(turned).body).width, try decoded(try await get(turned).body).height) == (640, 428))
        let deepPath = try await Self.builderPath(["source": "local:///albums/deep.png", "width": 0, "height": 0, "resizing_type": "fit", "extension": "png"])
        let deepAnswer = try await get(deepPath)
        #expect(deepAnswer.status == 200)
        // IHDR's bit depth, the 25th byte of a PNG.
        #expect(deepAnswer.body.count > 24 && deepAnswer.body[deepAnswer.body.startIndex + 24] == 16)

        // The embedded thumbnail is the image: no resize gives its own size.
        let coffee = try await Self.builderPath(["source": "local:///albums/coffee.heic", "width": 0, "height": 0, "resizing_type": "fit", "extension": "png"])
        let thumbnail = try await get(coffee)
        #expect(thumbnail.status == 200, "\(String(decoding: thumbnail.body, as: UTF8.self))")
        #expect((try decoded(thumbnail.body).width, try decoded(thumbnail.body).height) == (320, 212))

        // A folder outside the wildcard is refused; a missing file in it answers the fallback
        // image with its status and lifetime.
        let secret = try await Self.builderPath(["source": "local:///private/secret.jpg", "width": 50, "height": 50, "resizing_type": "fit"])
        #expect(try await get(secret).status == 403)
        let missing = try await Self.builderPath(["source": "local:///albums/missing.jpg", "width": 20, "height": 20, "resizing_type": "fit", "extension": "png"])
        let fallbackAnswer = try await get(missing)
        #expect(fallbackAnswer.status == 404)
        #expect(fallbackAnswer.headers["cache-control"] == "public, max-age=60")
        #expect((try decoded(fallbackAnswer.body).width, try decoded(fallbackAnswer.body).height) == (20, 10))

        child.signal(SIGTERM)
        #expect(try await child.waitForExit(timeout: .seconds(30)) == 0)
    }
}

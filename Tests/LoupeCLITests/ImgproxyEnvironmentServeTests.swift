import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoupeCodecs
import LoupeServer
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An imgproxy deployment's environment file starts `loupe serve` with no flags, and URLs the
/// PyPI `imgproxy` builder signs for its key and salt are served from its local root.
@Suite struct ImgproxyEnvironmentServeTests {
    @Test func anImgproxyEnvironmentFileStartsTheServerAndBuilderURLsAreServed() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let root = folder.path("images")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try TestImage.jpeg(width: 300, height: 200, seed: 21).write(to: URL(fileURLWithPath: root + "/photo.jpg"))
        // The deployment's watermark: a 16×16 red square.
        let watermark = folder.path("watermark.png")
        let red: [UInt8] = Array([[UInt8]](repeating: [255, 0, 0, 255], count: 16 * 16).joined())
        try ImageEncoder().encode(Bitmap(width: 16, height: 16, pixels: red), as: .png).write(to: URL(fileURLWithPath: watermark))
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        // As `docker run --env-file` reads it: NAME=value lines, comments and blank lines skipped.
        let file = """
            # imgproxy
            IMGPROXY_KEY=\(key)
            IMGPROXY_SALT=\(salt)
            IMGPROXY_BIND=127.0.0.1:0
            IMGPROXY_LOCAL_FILESYSTEM_ROOT=\(root)
            IMGPROXY_MAX_SRC_RESOLUTION=16.8
            IMGPROXY_MAX_SRC_FILE_SIZE=10485760
            IMGPROXY_QUALITY=70
            IMGPROXY_TTL=3600
            IMGPROXY_WORKERS=2
            IMGPROXY_USE_ETAG=true
            IMGPROXY_PRESETS=thumb=rs:fit:64:64
            IMGPROXY_WATERMARK_PATH=\(watermark)
            IMGPROXY_WATERMARK_OPACITY=1
            IMGPROXY_MAX_ANIMATION_FRAMES=10
            IMGPROXY_GCS_ENDPOINT=https://storage.example.com

            IMGPROXY_LOG_LEVEL=info
            """
        let child = try ServeProcess([], environment: Self.environment(fromFile: file))
        defer { child.kill() }
        let port = try await child.port()

        let output = try await PythonReference.run("imgproxy_urls.py", arguments: [key, salt, "local:///photo.jpg"])
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        // The script's cases, as imgproxy sizes them for a 300×200 source.
        let expected: [(format: ImageFormat, width: Int, height: Int)] = [(.jpeg, 64, 43), (.png, 40, 30), (.webp, 50, 33)]
        #expect(lines.count == expected.count)
        for (line, expected) in zip(lines, expected) {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = try #require(object["path"] as? String)
            let answer = try await Self.get(port: port, path: path)
            #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))")
            guard answer.status == 200 else { continue }
            let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
            #expect(image.metadata.format == expected.format, "\(path)")
            #expect((image.metadata.width, image.metadata.height) == (expected.width, expected.height), "\(path)")
            #expect(answer.headers["cache-control"] == "public, max-age=3600")
            #expect(answer.headers["last-modified"] != nil)
        }
        // The watermark is in force: a builder URL with `wm:1:ce` has the red square at the centre.
        let marked = try await PythonReference.run("imgproxy_urls.py", arguments: ["--options=q:70/wm:1:ce", key, salt, "local:///photo.jpg"])
        let markedLine = try #require(String(decoding: marked, as: UTF8.self).split(separator: "\n").first)
        let markedObject = try #require(try JSONSerialization.jsonObject(with: Data(markedLine.utf8)) as? [String: Any])
        let markedAnswer = try await Self.get(port: port, path: try #require(markedObject["path"] as? String))
        #expect(markedAnswer.status == 200)
        if markedAnswer.status == 200 {
            let bitmap = try ImageDecoder().decode(markedAnswer.body, options: DecodingOptions(firstFrameOnly: true)).bitmap
            let centre = bitmap.height / 2 * bitmap.bytesPerRow + bitmap.width / 2 * 4
            let pixel = Array(bitmap.pixels[centre..<centre + 3])
            #expect(pixel[0] > 200 && pixel[1] < 60 && pixel[2] < 60, "centre \(pixel)")
        }
        // The key is in force: unsigned URLs are refused.
        #expect(try await Self.get(port: port, path: "/insecure/w:10/plain/local:///photo.jpg").status == 403)

        child.signal(SIGTERM)
        #expect(try await child.waitForExit(timeout: .seconds(30)) == 0)
        let logged = child.child.text(.standardError).split(separator: "\n")
        let ignored = logged.filter { $0.contains("ignored imgproxy setting") }
        // Named once each: the two Loupe cannot take.
        let names = ["IMGPROXY_GCS_ENDPOINT", "IMGPROXY_LOG_LEVEL"]
        for name in names {
            #expect(ignored.filter { $0.contains("\"\(name)\"") }.count == 1, "\(name) in \(ignored)")
        }
        #expect(ignored.count == names.count, "\(ignored)")
    }

    /// Signatures do not depend on the host's OpenSSL configuration: with `OPENSSL_CONF` naming a
    /// file that loads only OpenSSL's base provider (which has no digests, so libcrypto's default
    /// context cannot compute an HMAC), builder-signed URLs are still served and forged ones refused.
    @Test func signaturesHoldWhateverTheHostsOpenSSLConfigurationSays() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let root = folder.path("images")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try TestImage.jpeg(width: 300, height: 200, seed: 22).write(to: URL(fileURLWithPath: root + "/photo.jpg"))
        let configuration = folder.path("openssl.cnf")
        try """
            openssl_conf = loupe_test
            [loupe_test]
            providers = providers
            [providers]
            base = base
            [base]
            activate = 1
            """.write(toFile: configuration, atomically: true, encoding: .utf8)
        let key = "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881"
        let salt = "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5"
        let child = try ServeProcess([], environment: [
            "IMGPROXY_KEY": key, "IMGPROXY_SALT": salt, "IMGPROXY_BIND": "127.0.0.1:0",
            "IMGPROXY_LOCAL_FILESYSTEM_ROOT": root, "OPENSSL_CONF": configuration,
        ])
        defer { child.kill() }
        let port = try await child.port()
        let output = try await PythonReference.run("imgproxy_urls.py", arguments: [key, salt, "local:///photo.jpg"])
        let line = try #require(String(decoding: output, as: UTF8.self).split(separator: "\n").first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let path = try #require(object["path"] as? String)
        #expect(try await Self.get(port: port, path: path).status == 200, "\(path)")
        // The same path under another signature of the right length.
        let signature = try #require(path.split(separator: "/").first)
        let forged = "/" + String(repeating: "A", count: signature.count) + path.dropFirst(signature.count + 1)
        #expect(try await Self.get(port: port, path: forged).status == 403, "\(forged)")
        child.signal(SIGTERM)
        #expect(try await child.waitForExit(timeout: .seconds(30)) == 0)
    }

    /// The variables of an environment file as `docker run --env-file` reads it: `NAME=value`
    /// lines, comments and blank lines skipped.
    static func environment(fromFile file: String) -> [String: String] {
        var environment: [String: String] = [:]
        for line in file.split(separator: "\n") where !line.hasPrefix("#") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            environment[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return environment
    }

    /// A GET with `headers`: status, headers (by lower-cased name) and body.
    static func get(port: Int, path: String, headers requestHeaders: [String: String] = [:]) async throws -> (status: Int, headers: [String: String], body: Data) {
        guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw FixtureError("bad path \(path)") }
        var request = URLRequest(url: url)
        for (name, value) in requestHeaders { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        var headers: [String: String] = [:]
        for (name, value) in http?.allHeaderFields ?? [:] {
            if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
        }
        return (http?.statusCode ?? 0, headers, data)
    }
}

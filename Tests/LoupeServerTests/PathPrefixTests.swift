import Foundation
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's `IMGPROXY_PATH_PREFIX`: every route under it, signatures over the path after it.
@Suite struct PathPrefixTests {
    @Test func everyRouteIsUnderThePrefix() async throws {
        let root = try TemporaryFolder.created()
        try TestImage.jpeg(width: 80, height: 60, seed: 32).write(to: root.url.appendingPathComponent("photo.jpg"))
        var settings = try ServerSettings(flags: [:], environment: ["IMGPROXY_PATH_PREFIX": "/img/v1/", "IMGPROXY_KEY": "736563726574",
                                                                     "IMGPROXY_SALT": "68656c6c6f"])
        #expect(settings.pathPrefix == "/img/v1")
        settings.localRoot = try RootedFileSystem(root: root.url.path)
        let path = "/rs:fit:40:40/plain/local:///photo.jpg"
        let signature = try #require(URLSigner(pairs: settings.keys).signature(for: path))
        try await RoutedServer.with(settings) { server in
            let image = try await server.request("/img/v1/" + signature + path)
            #expect(image.status == 200, "\(String(decoding: image.body, as: UTF8.self))")
            #expect(try await server.request("/" + signature + path).status == 404)
            #expect(try await server.request("/img/v1/health").status == 200)
            #expect(try await server.request("/health").status == 404)
        }
        #expect(throws: SettingsError.self) { try ServerSettings(flags: ["path-prefix": "/a/../b"], environment: [:]) }
        #expect(throws: SettingsError.self) { try ServerSettings(flags: ["path-prefix": "/a b"], environment: [:]) }
    }
}

import Foundation
import LoupeLoading
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// imgproxy's CORS setting (`IMGPROXY_ALLOW_ORIGIN`): images and errors name the allowed origin
/// and methods, a preflight is answered, and nothing of it without the setting.
@Suite struct CORSTests {
    static func settings(_ environment: [String: String], root: URL) throws -> ServerSettings {
        var settings = try ServerSettings(flags: [:], environment: environment)
        settings.allowsUnsigned = true
        settings.localRoot = try RootedFileSystem(root: root.path)
        return settings
    }

    @Test func answersNameTheOriginAndPreflightsAreAnswered() async throws {
        let root = try TemporaryFolder.created()
        try TestImage.jpeg(width: 80, height: 60, seed: 31).write(to: root.url.appendingPathComponent("photo.jpg"))
        let image = insecurePath("rs:fit:40:40", "local:///photo.jpg")
        try await RoutedServer.with(try Self.settings(["IMGPROXY_ALLOW_ORIGIN": "https://app.example.com"], root: root.url)) { server in
            for (path, status) in [(image, 200), (insecurePath("rs:fit:40:40", "local:///missing.jpg"), 404), ("/insecure/nonsense", 400)] {
                let answer = try await server.request(path)
                #expect(answer.status == status, "\(path)")
                #expect(answer.header("Access-Control-Allow-Origin") == "https://app.example.com", "\(path)")
                #expect(answer.header("Access-Control-Allow-Methods") == "GET, OPTIONS", "\(path)")
            }
            let preflight = try await server.request(image, method: .OPTIONS, headers: [("Origin", "https://app.example.com"),
                                                                                         ("Access-Control-Request-Method", "GET")])
            #expect(preflight.status == 200)
            #expect(preflight.body.isEmpty)
            #expect(preflight.header("Access-Control-Allow-Origin") == "https://app.example.com")
        }
        try await RoutedServer.with(try Self.settings([:], root: root.url)) { server in
            let answer = try await server.request(image)
            #expect(answer.status == 200)
            #expect(answer.header("Access-Control-Allow-Origin") == nil)
            #expect(try await server.request(image, method: .OPTIONS).status != 200)
        }
    }
}

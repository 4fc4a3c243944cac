import EmbeddedService
import Foundation
import Hummingbird
import HummingbirdTesting
import Loupe
import LoupeServer
import Testing

/// The example application over real HTTP on loopback: its own route answers, and Loupe's image
/// routes under /images resize a photo from an origin (another Hummingbird app on loopback).
@Suite struct EmbeddedServiceTests {
    @Test func servesItsOwnRouteAndResizedImagesUnderImages() async throws {
        let photo = try Self.photo(width: 400, height: 300)
        let originRouter = Router()
        originRouter.get("/photo.jpg") { _, _ in
            Response(status: .ok, headers: [.contentType: "image/jpeg"], body: .init(byteBuffer: ByteBuffer(bytes: photo)))
        }
        let origin = Application(router: originRouter, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await origin.test(.live) { originClient in
            let originPort = try #require(originClient.port)
            var settings = ServerSettings()
            settings.allowsUnsigned = true
            // The origin is on loopback, which the SSRF guard refuses unless let through.
            settings.addressPolicy.permittedAddresses.insert("127.0.0.1")
            let (app, images) = try buildApplication(settings: settings, port: 0)
            try await app.test(.live) { client in
                let hello = try await client.execute(uri: "/", method: .get)
                #expect(hello.status == .ok)
                #expect(String(buffer: hello.body) == "Hello from the app's own route\n")

                let path = "/images/insecure/rs:fit:100:100/plain/http://127.0.0.1:\(originPort)/photo.jpg@png"
                let resized = try await client.execute(uri: path, method: .get)
                #expect(resized.status == .ok)
                #expect(resized.headers[.contentType] == "image/png")
                let image = try ImageDecoder().decode(Data(buffer: resized.body), options: DecodingOptions(firstFrameOnly: true))
                #expect((image.metadata.width, image.metadata.height) == (100, 75))

                // The service's /health is not mounted unless asked for; the app's 404 answers.
                let health = try await client.execute(uri: "/images/health", method: .get)
                #expect(health.status == .notFound)
            }
            await images.flushCaches()
        }
    }

    /// A 400×300 JPEG with a gradient (made with Loupe's own encoder).
    static func photo(width: Int, height: Int) throws -> [UInt8] {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let offset = (y * width + x) * 4
                pixels[offset] = UInt8(x * 255 / width)
                pixels[offset + 1] = UInt8(y * 255 / height)
                pixels[offset + 2] = 128
            }
        }
        let bitmap = try Bitmap(width: width, height: height, pixels: pixels)
        return Array(try ImageEncoder().encode(bitmap, as: .jpeg(quality: 90)))
    }
}

import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import LoupeCodecs
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// Loupe's routes mounted in an app's own Hummingbird router under a prefix, beside the app's
/// routes: what an embedding app gets, answered by the router (HummingbirdTesting's router mode).
@Suite struct ImageRoutesTests {
    @Test func servesUnderThePrefixBesideTheAppsOwnRoutes() async throws {
        let photo = try TestImage.jpeg(width: 400, height: 300, seed: 5)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            let images = try ImageRoutes(settings: testSettings(), logger: Logger(label: "test"))
            let router = Router()
            router.get("/hello") { _, _ in "hi" }
            images.add(to: router, atPath: "/img/v1/", endpoints: [.images, .health])
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(.router) { client in
                let hello = try await client.execute(uri: "/hello", method: .get)
                #expect(hello.status == .ok)
                #expect(String(buffer: hello.body) == "hi")

                let image = "/img/v1" + insecurePath("rs:fit:100:100", origin.url("/cat.jpg").absoluteString, extension: "png")
                let resized = try await client.execute(uri: image + "?utm=1", method: .get)
                #expect(resized.status == .ok)
                #expect(resized.headers[.contentType] == "image/png")
                let decoded = try ImageDecoder().decode(Data(buffer: resized.body), options: DecodingOptions(firstFrameOnly: true))
                #expect((decoded.metadata.width, decoded.metadata.height) == (100, 75))

                let info = try await client.execute(uri: "/img/v1/info" + insecurePath("", origin.url("/cat.jpg").absoluteString), method: .get)
                #expect(info.status == .ok)
                #expect(info.headers[.contentType] == "application/json")

                // Not mounted: the service answers 404 itself; outside the prefix, the app does.
                let metrics = try await client.execute(uri: "/img/v1/metrics", method: .get)
                #expect(metrics.status == .notFound)
                let outside = try await client.execute(uri: "/insecure/rs:fit:50:50/plain/http://127.0.0.1/x.jpg", method: .get)
                #expect(outside.status == .notFound)

                let health = try await client.execute(uri: "/img/v1/health", method: .get)
                #expect(health.status == .ok)
                images.startDraining()
                let draining = try await client.execute(uri: "/img/v1/health", method: .get)
                #expect(draining.status == .serviceUnavailable)
                #expect(draining.headers[.connection] == "close")
            }
            await images.flushCaches()
        }
    }

    /// The route collection an app mounts itself: a source URL's `//` and a trailing `/` reach the
    /// service as sent, a method a route does not take is the service's 405, HEAD has no body, and the service's middleware counts what its routes answered.
    @Test func aMountedRouteCollectionKeepsTheServicesAnswers() async throws {
        let photo = try TestImage.jpeg(width: 400, height: 300, seed: 6)
        try await OriginServer.run(handler: { request in request.path == "/a//b.jpg/" ? .ok(photo) : .status(404) }) { origin in
            let images = try ImageRoutes(settings: testSettings(), logger: Logger(label: "test"))
            let router = Router()
            router.addRoutes(images.routes(endpoints: [.images, .metrics]), atPath: "/img")
            let app = Application(router: router)
            try await app.test(.router) { client in
                let image = "/img/insecure/rs:fit:40:40/plain/" + origin.url("/a").absoluteString + "//b.jpg/@png"
                let get = try await client.execute(uri: image, method: .get)
                #expect(get.status == .ok, "\(String(buffer: get.body))")
                #expect(get.headers[.contentType] == "image/png")
                let head = try await client.execute(uri: image, method: .head)
                #expect(head.status == .ok)
                #expect(head.body.readableBytes == 0)

                let post = try await client.execute(uri: image, method: .post)
                #expect(post.status == .methodNotAllowed)
                #expect(post.headers[.contentType] == "application/json")
                #expect(String(buffer: post.body) == #"{"kind":"methodNotAllowed","message":"method POST is not allowed here"}"#)
                let batch = try await client.execute(uri: "/img/batch", method: .get)
                #expect(batch.status == .methodNotAllowed)

                let metrics = String(buffer: try await client.execute(uri: "/img/metrics", method: .get).body)
                #expect(metrics.contains(#"loupe_http_requests_total{status="200"} 2"#), "\(metrics)")
                #expect(metrics.contains(#"loupe_http_requests_total{status="405"} 2"#), "\(metrics)")
            }
            await images.flushCaches()
        }
    }
}

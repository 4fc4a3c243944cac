import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeOrigin
@testable import LoupeServer
import LoupeTestSupport
import Testing

/// The service takes no stale source, whatever its server allows: a result lives for `--ttl` (a
/// year by default) in the result cache and every cache in front, far past a source's
/// `stale-while-revalidate` window, so a new result is made from a revalidated source only.
@Suite struct StaleSourceTests {
    @Test func aNewResultIsMadeFromTheSourceAsItIsNow() async throws {
        let landscape = try TestImage.jpeg(width: 120, height: 80, seed: 41), portrait = try TestImage.jpeg(width: 80, height: 120, seed: 42)
        let changed = Locked(false)
        let headers = [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=0, stale-while-revalidate=600, stale-if-error=600")]
        try await OriginServer.run(handler: { _ in
            OriginResponse(status: 200, headers: headers, body: changed.withLock { $0 } ? portrait : landscape)
        }) { origin in
            let folder = try TemporaryFolder.created()
            var settings = testSettings()
            settings.cacheDirectory = folder.url
            let source = origin.url("/p.jpg").absoluteString
            try await RoutedServer.with(settings) { server in
                let before = try await server.request(insecurePath("rs:fit:60:60", source))
                let first = try ImageDecoder().metadata(of: before.body)
                #expect((first.width, first.height) == (60, 40))
                changed.withLock { $0 = true }
                let after = try await server.request(insecurePath("rs:fit:50:50", source))
                let second = try ImageDecoder().metadata(of: after.body)
                #expect((second.width, second.height) == (33, 50))
                #expect(origin.requestCount(for: "/p.jpg") == 2)
            }
        }
    }
}

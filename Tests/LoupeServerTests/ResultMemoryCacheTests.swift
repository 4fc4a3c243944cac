import Foundation
import LoupeOrigin
import LoupeServer
import LoupeTestSupport
import Testing

/// Encoded results kept in memory in front of the disk result cache (`--result-memory-limit`).
@Suite struct ResultMemoryCacheTests {
    /// Without a cache folder, a repeated URL is answered from memory: one download, one
    /// decode, the same bytes; with the memory limit 0 (and no decoded-pixel cache) it is made
    /// again.
    @Test func aRepeatedURLIsAnsweredFromMemoryUnlessTheLimitIsZero() async throws {
        let photo = try TestImage.jpeg(width: 200, height: 150, seed: 31)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            var settings = testSettings()
            settings.cacheDirectory = nil
            let path = insecurePath("rs:fit:50:50", origin.url("/kept.jpg").absoluteString, extension: "png")
            try await RoutedServer.with(settings) { server in
                let first = try await server.request(path)
                let second = try await server.request(path)
                #expect(first.status == 200 && second.status == 200)
                #expect(second.body == first.body)
                #expect(second.header("ETag") == first.header("ETag"))
                let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
                #expect(metrics.contains("loupe_result_cache_hits_total 1"))
                #expect(metrics.contains("loupe_pipeline_decodes 1"))
            }
            #expect(origin.requestCount(for: "/kept.jpg") == 1)

            settings.resultMemoryLimit = 0
            settings.memoryLimit = 0
            try await RoutedServer.with(settings) { server in
                for _ in 0..<2 { #expect(try await server.request(path).status == 200) }
                let metrics = String(decoding: try await server.request("/metrics").body, as: UTF8.self)
                #expect(metrics.contains("loupe_result_cache_hits_total 0"))
            }
            #expect(origin.requestCount(for: "/kept.jpg") == 3)
        }
    }
}

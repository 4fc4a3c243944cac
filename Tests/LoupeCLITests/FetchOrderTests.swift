import Foundation
import LoupeOrigin
import LoupeTestSupport
import Testing

/// `loupe fetch --json` keeps input order whatever order the images arrive in: an origin that
/// answers each path after its own random latency (seeded, so a failure can be replayed).
@Suite struct FetchOrderTests {
    @Test(arguments: [1, 2, 3])
    func inputOrderIsKeptUnderRandomLatencies(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let count = 40
        let latencies = (0..<count).map { _ in Duration.milliseconds(Int64(random.next() % 150)) }
        let image = try TestImage.jpeg(width: 64, height: 48)
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await OriginServer.run(handler: { request in
            guard let index = Int(request.path.dropFirst("/".count).prefix { $0.isNumber }), index < count else {
                return .status(404)
            }
            // Every fifth image fails, so failures must keep their place too.
            return index % 5 == 4 ? OriginResponse(status: 404, delay: latencies[index]) : .ok(image, delay: latencies[index])
        }) { origin in
            // Each URL twice, the copies far apart: still one request per URL.
            let urls = (0..<count).map { origin.url("/\($0).jpg").absoluteString }
            let sources = urls + urls.reversed()
            let run = try await LoupeRun.run(["fetch", "--json", "--no-cache", "--concurrency", "8"] + sources, home: folder.url)
            #expect(run.status == 1, "some failed")
            let objects = try run.objects()
            #expect(objects.map { $0["source"] as? String } == sources)
            for (object, source) in zip(objects, sources) {
                let index = try #require(Int(URL(string: source)?.lastPathComponent.prefix { $0.isNumber } ?? ""))
                #expect(object["ok"] as? Bool == (index % 5 != 4), "\(source)")
            }
            #expect((0..<count).allSatisfy { origin.requestCount(for: "/\($0).jpg") == 1 })
        }
    }
}


import Foundation
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// The memory cache as a user configures and observes it: which images it keeps under a small
/// limit, and its size through the public API.
@Suite final class ImagePipelineMemoryCacheTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestDate()

    deinit { folder.remove() }

    /// Two requests for a 900×506 photo (1.8 MB of pixels) under a 10 MB limit, with `configure`.
    func originRequestsForTwoLoads(configure: @escaping (inout ImagePipeline.Configuration) -> Void) async throws -> (requests: Int, second: ImageOrigin, usage: (count: Int, cost: Int)) {
        let photo = try TestImage.jpeg(width: 900, height: 506, seed: 4)
        let requests = Counter()
        return try await OriginServer.run(handler: { _ in
            requests.increment()
            return .ok(photo)
        }) { origin in
            var configuration = ImagePipeline.Configuration()
            configuration.memoryCacheCostLimit = 10_000_000
            configure(&configuration)
            let pipeline = ImagePipeline(configuration: configuration)
            let url = origin.url("/photo.jpg")
            #expect(try await pipeline.image(for: url).origin == .network)
            let second = try await pipeline.image(for: url).origin
            return (requests.count, second, pipeline.memoryCacheUsage)
        }
    }

    @Test func aFullSizePhotoIsKeptUnderATenMegabyteLimitByDefault() async throws {
        let outcome = try await originRequestsForTwoLoads { _ in }
        #expect(outcome.requests == 1)
        #expect(outcome.second == .memory)
        #expect(outcome.usage.count == 1 && outcome.usage.cost == 900 * 506 * 4)
    }

    @Test func anImageOverTheEntryShareIsReturnedButNotKept() async throws {
        // 10 % of 10 MB is 1 MB: the 1.8 MB photo is refused by the cache, and loaded again.
        let outcome = try await originRequestsForTwoLoads { $0.memoryCacheEntryCostFraction = 0.1 }
        #expect(outcome.requests == 2)
        #expect(outcome.second == .network)
        #expect(outcome.usage.count == 0 && outcome.usage.cost == 0)
    }

    @Test func usageIsZeroWhenTheMemoryCacheIsDisabled() async throws {
        let outcome = try await originRequestsForTwoLoads { $0.isMemoryCacheEnabled = false }
        #expect(outcome.requests == 2)
        #expect(outcome.usage.count == 0 && outcome.usage.cost == 0)
    }
}

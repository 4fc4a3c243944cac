import Foundation
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// One decision per request on the pipeline's path, counted on the real decoder: a download's
/// header is read once — by the decode, which decides from it the scale a first processor
/// needs and the memory its pixels take — and a first processor that scales the source plans
/// once, from that header. The pipeline is configured as the service's is (a memory budget,
/// downloads over HTTP).
@Suite struct OneDecisionPerRequestTests {
    /// What the pipeline asks of the real decoder, counted.
    final class CountingDecoder: ImageDecoding {
        let inner = ImageDecoder()
        let counts = Locked<[String: Int]>([:])

        func count(_ name: String) { counts.withLock { $0[name, default: 0] += 1 } }

        func metadata(of data: Data) throws -> ImageMetadata {
            count("metadata")
            return try inner.metadata(of: data)
        }

        func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage {
            count("decode")
            return try inner.decode(data, options: options)
        }

        func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
            count("decode reading the header")
            return try inner.decode(data, options: options) { metadata, options in
                self.count("header")
                try afterHeader(metadata, &options)
            }
        }

        func recognizes(_ data: Data) -> Bool {
            count("signature")
            return inner.recognizes(data)
        }
    }

    /// A first processor that halves the source, whatever the decode's scale: its plan is the
    /// result's size, counted.
    struct Halving: SourceScaledProcessing {
        struct Plan: Sendable, Equatable {
            var width: Int, height: Int
        }

        let plans: Locked<Int>
        var identifier: String { "test.halving" }

        func plan(sourceWidth: Int, sourceHeight: Int) -> Plan {
            plans.withLock { $0 += 1 }
            return Plan(width: (sourceWidth + 1) / 2, height: (sourceHeight + 1) / 2)
        }

        func minimumSourceScale(for plan: Plan) -> Double { 0.5 }

        func process(_ bitmap: Bitmap, plan: Plan) throws(ProcessingError) -> Bitmap {
            try ImageProcessors.Resize(width: plan.width, height: plan.height, mode: .exact, allowsUpscaling: true).process(bitmap)
        }

        func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
            try process(bitmap, plan: plan(sourceWidth: bitmap.width, sourceHeight: bitmap.height))
        }
    }

    @Test func aDownloadsHeaderIsReadOnceAndTheFirstProcessorPlansOnce() async throws {
        let photo = try TestImage.jpeg(width: 640, height: 480, seed: 2)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            let decoder = CountingDecoder()
            var configuration = ImagePipeline.Configuration(dataCache: nil)
            configuration.decoder = decoder
            configuration.memoryBudget = MemoryBudget(limit: 64 << 20)
            configuration.isMemoryCacheEnabled = false
            let pipeline = ImagePipeline(configuration: configuration)

            let thumbnail = try await pipeline.image(for: ImageRequest(url: origin.url("/a.jpg"), thumbnail: 64))
            #expect((thumbnail.bitmap.width, thumbnail.bitmap.height) == (64, 48))
            #expect(decoder.counts.withLock { $0 } == ["signature": 1, "decode reading the header": 1, "header": 1])

            decoder.counts.withLock { $0 = [:] }
            let plans = Locked(0)
            let halved = try await pipeline.image(for: ImageRequest(url: origin.url("/b.jpg"), processors: [Halving(plans: plans)]))
            #expect((halved.bitmap.width, halved.bitmap.height) == (320, 240))
            #expect(plans.withLock { $0 } == 1)
            #expect(decoder.counts.withLock { $0 } == ["signature": 1, "decode reading the header": 1, "header": 1])
            // The decode's share of the budget was taken from that header, and given back with the pixels.
            #expect(configuration.memoryBudget?.inUse == 0)
        }
    }

    /// A body that starts like a JPEG but is not one is refused by the decode, which reads its
    /// header; the data stage, which only checks the signature, keeps nothing of it on disk.
    @Test func aBodyThatOnlyStartsLikeAnImageFailsAndIsNotKept() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let broken = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 0x41, count: 200)
        try await OriginServer.run(handler: { _ in .ok(broken) }) { origin in
            let disk = try DiskCache(directory: folder.url)
            let pipeline = ImagePipeline(configuration: .init(dataCache: disk))
            let url = origin.url("/broken.jpg")
            await #expect {
                try await pipeline.image(for: url)
            } throws: { error in
                (error as? ImagePipelineError)?.reason == .corrupt
            }
            await pipeline.flushDataCache()
            #expect(try disk.entry(forKey: url.absoluteString) == nil)
            await pipeline.shutdown()
        }
    }
}

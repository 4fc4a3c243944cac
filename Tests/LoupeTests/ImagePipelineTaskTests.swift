import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
import Testing
@testable import Loupe

/// Sharing, cancellation, priority and progress of pipeline work, with local data held in
/// flight by a gate where the test must arrange joins.
@Suite struct ImagePipelineTaskTests {
    /// A pipeline whose `file` loads wait for `loader`'s gate, without a disk cache.
    func gatedPipeline(_ loader: GatedLocalLoader, configure: (inout ImagePipeline.Configuration) -> Void = { _ in }) -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(dataLoader: loader)
        configuration.localDataLoader = loader
        configure(&configuration)
        return ImagePipeline(configuration: configuration)
    }

    @Test func processorPrefixesAreComputedOnce() async throws {
        let loader = GatedLocalLoader()
        let pipeline = gatedPipeline(loader)
        let url = try temporaryFile(TestImage.png(width: 200, height: 100))
        let runs = Recorder<String>()
        let crop = CountingProcessor(base: ImageProcessors.Crop(x: 0, y: 0, width: 160, height: 100), runs: runs)
        let resize = CountingProcessor(base: ImageProcessors.Resize(width: 80, height: 80), runs: runs)
        let small = CountingProcessor(base: ImageProcessors.Resize(width: 16, height: 16), runs: runs)
        let flip = CountingProcessor(base: ImageProcessors.Crop(x: 0, y: 0, width: 40, height: 40), runs: runs)
        let first = Task { try await pipeline.image(for: ImageRequest(url: url, processors: [crop, resize, small])) }
        let second = Task { try await pipeline.image(for: ImageRequest(url: url, processors: [crop, resize, flip])) }
        let third = Task { try await pipeline.image(for: ImageRequest(url: url, processors: [crop])) }
        // All three wait for the one data load before it is let through.
        #expect(await eventually { loader.loads.count == 1 && pipeline.statistics.requests == 3 && pipeline.decodeStage.loader.loadsInFlight == 1 })
        #expect(await eventually { pipeline.processStage.loader.loadsInFlight == 4 }, "c+r+s, c+r+f, c+r and c: the prefixes once")
        loader.gate.open()
        let (a, b, c) = try await (first.value, second.value, third.value)
        #expect(a.bitmap.width == 16 && a.bitmap.height == 10)
        #expect(b.bitmap.width == 40 && b.bitmap.height == 40)
        #expect(c.bitmap.width == 160 && c.bitmap.height == 100)
        let counts = Dictionary(runs.all.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts == [crop.identifier: 1, resize.identifier: 1, small.identifier: 1, flip.identifier: 1])
        #expect(pipeline.statistics.decodes == 1 && pipeline.statistics.processorRuns == 4)
        #expect(loader.loads.count == 1)
    }

    @Test func cancellingOneOfTwoLeavesTheOtherToFinish() async throws {
        let loader = GatedLocalLoader()
        let pipeline = gatedPipeline(loader)
        let url = try temporaryFile(TestImage.jpeg(width: 64, height: 48))
        let cancelled = pipeline.imageTask(with: ImageRequest(url: url))
        let kept = pipeline.imageTask(with: ImageRequest(url: url))
        #expect(await eventually { pipeline.dataStage.loader.loadsInFlight == 1 && pipeline.statistics.requests == 2 && pipeline.statistics.coalescedRequests == 1 })
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.response }
        loader.gate.open()
        let response = try await kept.response
        #expect(response.bitmap.width == 64)
        #expect(loader.cancellations.count == 0, "the shared load was never cancelled")
        #expect(pipeline.statistics.cancellations == 1)
    }

    @Test func cancellingEveryRequestCancelsTheLoad() async throws {
        let loader = GatedLocalLoader()
        let pipeline = gatedPipeline(loader)
        let url = try temporaryFile(TestImage.jpeg(width: 64, height: 48))
        let tasks = (0..<3).map { _ in pipeline.imageTask(with: ImageRequest(url: url, thumbnail: 10)) }
        #expect(await eventually { loader.loads.count == 1 && pipeline.statistics.requests == 3 })
        for task in tasks { task.cancel() }
        for task in tasks { await #expect(throws: CancellationError.self) { try await task.response } }
        #expect(await eventually { loader.cancellations.count == 1 })
        #expect(await eventually { pipeline.dataStage.loader.loadsInFlight == 0 && pipeline.decodeStage.loader.loadsInFlight == 0 })
        #expect(pipeline.statistics.decodes == 0)
    }

    /// With the only processing slot held, a request cancelled while its decode waits for a
    /// slot is never decoded.
    @Test func decodingIsSkippedForRequestsCancelledWhileTheyWaited() async throws {
        let pipeline = ImagePipeline(configuration: {
            var configuration = ImagePipeline.Configuration(dataLoader: LocalDataLoader())
            configuration.maximumConcurrentProcessing = 1
            return configuration
        }())
        let release = DispatchSemaphore(value: 0)
        defer { release.signal() } // never leave a thread blocked, even when an expectation fails
        let blocking = BlockingProcessor(release: release)
        let first = pipeline.imageTask(with: ImageRequest(url: try temporaryFile(TestImage.png(width: 8, height: 8)), processors: [blocking]))
        #expect(await eventually { blocking.started.count == 1 }, "the first request holds the only slot")
        let second = pipeline.imageTask(with: ImageRequest(url: try temporaryFile(TestImage.png(width: 9, height: 9))))
        #expect(await eventually { pipeline.processingQueue.waitingCount == 1 })
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.response }
        release.signal()
        #expect(try await first.response.bitmap.width == 8)
        #expect(pipeline.statistics.decodes == 1, "only the first request's image was decoded")
        #expect(pipeline.processingQueue.waitingCount == 0)
    }

    @Test func aTaskReportsItsCompletionAsAnEvent() async throws {
        let pipeline = ImagePipeline(configuration: .init(dataLoader: LocalDataLoader()))
        let data = try TestImage.jpeg(width: 30, height: 20)
        let task = pipeline.imageTask(with: ImageRequest(url: try temporaryFile(data)))
        var progress: [ImageTask.Progress] = []
        var finished: Result<ImageResponse, any Error>?
        for await event in task.events {
            switch event {
            case .progress(let value): progress.append(value)
            case .finished(let result): finished = result
            case .updated: Issue.record("a local file is never stale, so never updated")
            case .preview: Issue.record("a local file arrives whole, so shows no preview")
            }
        }
        #expect(progress == [ImageTask.Progress(completed: data.count, total: data.count)])
        #expect(try finished?.get().bitmap.width == 30)
        #expect(try await task.response.origin == .file)
    }

    @Test func fileAndDataURLsAreLocal() async throws {
        let pipeline = ImagePipeline(configuration: .init(dataLoader: LocalDataLoader()))
        let data = try TestImage.png(width: 3, height: 2)
        let dataURL = try #require(URL(string: "data:image/png;base64,\(data.base64EncodedString())"))
        let response = try await pipeline.image(for: dataURL)
        #expect(response.origin == .file && response.bitmap.width == 3)
        #expect(response.container.metadata.format == .png)
        #expect(pipeline.statistics.localLoads == 1)
    }

    @Test func unsupportedSchemesAndMissingFilesAreTypedErrors() async throws {
        let pipeline = ImagePipeline(configuration: .init(dataLoader: LocalDataLoader()))
        for (url, reason) in [("ftp://127.0.0.1/a.jpg", ImageFailure.Reason.invalidSource), ("file:///nonexistent/loupe.jpg", .unreadableFile)] {
            await #expect {
                try await pipeline.image(for: try #require(URL(string: url)))
            } throws: { error in
                (error as? ImagePipelineError)?.reason == reason
            }
        }
    }

    @Test func theMemoryCacheCostIsBytesOfPixels() async throws {
        let pipeline = ImagePipeline(configuration: .init(dataLoader: LocalDataLoader()))
        _ = try await pipeline.image(for: ImageRequest(url: try temporaryFile(TestImage.jpeg(width: 64, height: 48)), thumbnail: 32))
        #expect(pipeline.memoryCache?.totalCost == 32 * 24 * 4)
    }

    @Test func theImageOfADecodeBombIsRefusedByTheLimits() async throws {
        var configuration = ImagePipeline.Configuration(dataLoader: LocalDataLoader())
        configuration.decodingLimits = DecodingLimits(maxPixelCount: 1_000)
        let pipeline = ImagePipeline(configuration: configuration)
        await #expect {
            try await pipeline.image(for: try temporaryFile(TestImage.png(width: 40, height: 40)))
        } throws: { error in
            (error as? ImagePipelineError)?.reason == .limitExceeded
        }
    }
}

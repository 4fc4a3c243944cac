import Foundation
@testable import LoupeCaching
import LoupeLoading
import LoupeTestSupport
import Testing
@testable import Loupe

/// Prefetching (the prefetching list): low priority, its own limit, skipping what is cached, and a cell that
/// joins a running prefetch keeps its image when the prefetch is stopped.
@Suite final class ImagePrefetcherTests: Sendable {
    let loader = GatedLocalLoader()
    let urls: [URL]

    init() throws {
        urls = try (0..<5).map { try temporaryFile(TestImage.jpeg(width: 20 + $0, height: 10, seed: $0)) }
    }

    deinit { for url in urls { try? FileManager.default.removeItem(at: url) } }

    func makePipeline() -> ImagePipeline {
        var configuration = ImagePipeline.Configuration(dataLoader: loader)
        configuration.localDataLoader = loader
        return ImagePipeline(configuration: configuration)
    }

    @Test func prefetchesIntoMemoryAFewAtATimeAndSkipsWhatIsCached() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrentRequests: 2)
        prefetcher.startPrefetching(with: urls)
        prefetcher.startPrefetching(with: urls) // already prefetching: nothing more
        #expect(await eventually { loader.loads.count == 2 })
        loader.gate.open()
        #expect(await eventually { prefetcher.statistics.completed == 5 })
        #expect(loader.inFlight.maximum == 2, "never more than two at once")
        for (index, url) in urls.enumerated() {
            #expect(pipeline.cachedImage(for: ImageRequest(url: url))?.bitmap.width == 20 + index)
        }
        prefetcher.startPrefetching(with: urls)
        #expect(prefetcher.statistics == ImagePrefetcher.Statistics(started: 5, completed: 5, skipped: 5))
        #expect(loader.loads.count == 5)
    }

    @Test func waitUntilIdleReturnsOnceEveryPrefetchHasEnded() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrentRequests: 2)
        await prefetcher.waitUntilIdle() // nothing started: returns at once
        prefetcher.startPrefetching(with: urls)
        let waiter = Task { await prefetcher.waitUntilIdle() }
        #expect(await eventually { loader.loads.count == 2 })
        prefetcher.stopPrefetching(with: [urls[4]])
        loader.gate.open()
        await waiter.value
        #expect(prefetcher.pendingCount == 0)
        let statistics = prefetcher.statistics
        #expect(statistics.completed + statistics.cancelled == 5)
        #expect(statistics.completed >= 4)
        for url in urls.prefix(4) { #expect(pipeline.cachedImage(for: ImageRequest(url: url)) != nil) }
        #expect(pipeline.memoryCacheUsage.count == statistics.completed)
    }

    @Test func aCancelledWaitReturnsWhilePrefetchesGoOn() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [urls[0]])
        let waiter = Task { await prefetcher.waitUntilIdle() }
        #expect(await eventually { loader.loads.count == 1 })
        waiter.cancel()
        await waiter.value
        #expect(prefetcher.pendingCount == 1)
        loader.gate.open()
        await prefetcher.waitUntilIdle()
        #expect(prefetcher.statistics.completed == 1)
    }

    @Test func aCellJoiningARunningPrefetchKeepsItsImageWhenThePrefetchStops() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [urls[0]])
        #expect(await eventually { loader.loads.count == 1 })
        let cell = pipeline.imageTask(with: ImageRequest(url: urls[0], priority: .high))
        // Joined once it waits for the shared load beside the prefetch: the statistics count the
        // request as coalesced a moment earlier, at its memory miss, and stopping the prefetch in
        // between would cancel the load before the cell joins it (seen under ThreadSanitizer).
        let key = ImagePipeline.StageKey(ImageRequest(url: urls[0]))
        #expect(await eventually { pipeline.finalImageStage.loader.waiterCount(for: key) == 2 })
        #expect(pipeline.statistics.coalescedRequests == 1)
        prefetcher.stopPrefetching(with: [urls[0]])
        #expect(await eventually { prefetcher.statistics.cancelled == 1 })
        loader.gate.open()
        let response = try await cell.response
        #expect(response.bitmap.width == 20)
        #expect(loader.loads.count == 1 && loader.cancellations.count == 0, "one load, never cancelled")
    }

    /// A list view stops a cell's prefetch on the line after asking for the cell's image: the
    /// cell's task has joined the load by then (it joins before `imageTask(with:)` returns), so
    /// the load is neither cancelled nor started twice.
    @Test func stoppingThePrefetchRightAfterTheCellAsksKeepsTheLoad() async throws {
        try await stopRightAfterAsking()
    }

    /// The same from the main actor, where a UI calls from: no executor hop lets the stop run first.
    @MainActor @Test func stoppingThePrefetchRightAfterTheCellAsksOnTheMainActorKeepsTheLoad() async throws {
        try await stopRightAfterAsking()
    }

    nonisolated(nonsending)
    private func stopRightAfterAsking() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [urls[1]])
        #expect(await eventually { loader.loads.count == 1 })
        let cell = pipeline.imageTask(with: ImageRequest(url: urls[1], priority: .high))
        prefetcher.stopPrefetching(with: [urls[1]])
        loader.gate.open()
        let response = try await cell.response
        #expect(response.bitmap.width == 21)
        #expect(loader.loads.count == 1 && loader.cancellations.count == 0, "one load, never cancelled")
    }

    /// A list hands over the cells below the screen nearest first, and the cells it has just
    /// scrolled near in its latest call: those load first, then each call's in the order given.
    @Test func prefetchesStartNewestCallFirstAndInTheGivenOrderWithinACall() async throws {
        let recorder = OrderRecordingLoader(base: loader)
        var configuration = ImagePipeline.Configuration(dataLoader: recorder)
        configuration.localDataLoader = recorder
        let pipeline = ImagePipeline(configuration: configuration)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrentRequests: 1)
        let names = urls.map(\.lastPathComponent)
        prefetcher.startPrefetching(with: Array(urls[0..<3]))
        #expect(await eventually { recorder.started.all.count == 1 })
        prefetcher.startPrefetching(with: Array(urls[3..<5]))
        loader.gate.open()
        #expect(await eventually { prefetcher.statistics.completed == 5 })
        #expect(recorder.started.all == [names[0], names[3], names[4], names[1], names[2]])
    }

    @Test func stoppingEveryInterestCancelsTheLoad() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [urls[1]])
        #expect(await eventually { loader.loads.count == 1 })
        prefetcher.stopPrefetching()
        #expect(await eventually { loader.cancellations.count == 1 })
        #expect(await eventually { prefetcher.statistics.cancelled == 1 && prefetcher.pendingCount == 0 })
    }

    @Test func aPausedPrefetcherStartsNothingUntilResumed() async throws {
        let pipeline = makePipeline()
        let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrentRequests: 3)
        prefetcher.isPaused = true
        loader.gate.open()
        prefetcher.startPrefetching(with: urls)
        // The event: all five wait in the paused queue, which starts none of its waiters until
        // resumed; a prefetch that went around the queue would never wait there.
        #expect(await eventually { prefetcher.queue.waitingCount == 5 })
        #expect(loader.loads.count == 0 && prefetcher.pendingCount == 5)
        prefetcher.isPaused = false
        #expect(await eventually { prefetcher.statistics.completed == 5 })
    }

    @Test func theDiskDestinationStoresDataWithoutDecoding() async throws {
        let folder = TemporaryFolder()
        defer { folder.remove() }
        let server = try NginxServer.start(files: ["a.jpg": TestImage.jpeg(width: 30, height: 20)])
        defer { server.stop() }
        var configuration = ImagePipeline.Configuration(dataCache: try DiskCache(directory: folder.url), dataLoader: AsyncHTTPClientDataLoader())
        configuration.isMemoryCacheEnabled = true
        let pipeline = ImagePipeline(configuration: configuration)
        let prefetcher = ImagePrefetcher(pipeline: pipeline, destination: .diskCache)
        let request = ImageRequest(url: server.url("a.jpg"))
        prefetcher.startPrefetching(with: [request, ImageRequest(url: server.url("missing.jpg"))])
        #expect(await eventually { prefetcher.statistics.completed == 1 && prefetcher.statistics.failed == 1 })
        #expect(pipeline.statistics.decodes == 0)
        #expect(pipeline.cachedImage(for: request) == nil)
        prefetcher.startPrefetching(with: [request])
        #expect(prefetcher.statistics.skipped == 1)
        let response = try await pipeline.image(for: request)
        #expect(response.origin == .disk)
        #expect(server.requestCount(for: "/a.jpg") == 1)
    }
}

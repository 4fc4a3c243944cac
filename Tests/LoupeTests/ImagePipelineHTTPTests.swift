import Foundation
import LoupeCaching
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
import Testing
@testable import Loupe

/// The pipeline against a real nginx on loopback: caches, revalidation, coalescing, errors.
@Suite(.serialized) final class ImagePipelineHTTPTests: Sendable {
    let server: NginxServer
    let photo: Data
    let folder = TemporaryFolder()
    let date = TestDate()

    init() throws {
        photo = try TestImage.jpeg(width: 640, height: 480, seed: 1)
        var files = ["photo.jpg": photo, "other.png": try TestImage.png(width: 30, height: 20, seed: 2),
                     "html.jpg": Data("<html><body>not an image</body></html>".utf8),
                     "changing.jpg": try TestImage.jpeg(width: 100, height: 50, seed: 3)]
        for i in 0..<50 { files["many/\(i).jpg"] = try TestImage.jpeg(width: 40, height: 30, seed: i) }
        // 64 KB: two seconds under /paced/ (32 KB/s); 240 KB: a minute under /slow/ (4 KB/s).
        files["noise.png"] = try TestImage.noisePNG(width: 128, height: 128)
        files["big.bin"] = Data((0..<240_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        server = try NginxServer.start(files: files)
    }

    deinit {
        server.stop()
        folder.remove()
    }

    @Test func coldLoadComesFromTheNetworkThenFromMemory() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let request = ImageRequest(url: server.url("photo.jpg"))
        let first = try await pipeline.image(for: request)
        #expect(first.origin == .network)
        #expect(first.bitmap.width == 640 && first.bitmap.height == 480)
        #expect(first.container.metadata.format == .jpeg)
        #expect(first.container.dataCount == photo.count)
        #expect(first.timings.dataLoad != nil && first.timings.decode != nil)
        let second = try await pipeline.image(for: request)
        #expect(second.origin == .memory)
        #expect(second.bitmap == first.bitmap)
        let stats = pipeline.statistics
        #expect(stats.requests == 2 && stats.memoryHits == 1 && stats.downloads == 1)
        #expect(stats.bytesDownloaded == photo.count)
        #expect(server.requestCount(for: "/photo.jpg") == 1)
    }

    @Test func shutdownReleasesTheFolderForASecondPipelineWhichServesWhatTheFirstLoaded() async throws {
        let url = server.url("photo.jpg")
        let (first, _) = try makePipeline(folder: folder, date: date)
        #expect(try await first.image(for: url).origin == .network)
        // Open, the first pipeline's cache holds the folder.
        #expect(throws: DiskCacheError.self) { _ = try makePipeline(folder: folder, date: date) }
        await first.shutdown()
        #expect(first.memoryCacheUsage.count == 0)
        let (second, _) = try makePipeline(folder: folder, date: date)
        #expect(try await second.image(for: url).origin == .disk)
        #expect(server.requestCount(for: "/photo.jpg") == 1)
        // The first pipeline still answers, from the network, without its (closed) disk cache.
        #expect(try await first.image(for: url).origin == .network)
        await first.shutdown()
        await second.shutdown()
    }

    @Test func aRestartedPipelineServesTheDiskCacheWithoutARequest() async throws {
        let url = server.url("photo.jpg")
        do {
            let (pipeline, disk) = try makePipeline(folder: folder, date: date)
            #expect(try await pipeline.image(for: url).origin == .network)
            await pipeline.flushDataCache()
            disk.close()
        }
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: 64))
        #expect(response.origin == .disk)
        #expect(response.bitmap.width == 64 && response.bitmap.height == 48)
        #expect(server.requestCount(for: "/photo.jpg") == 1)
        #expect(pipeline.statistics.diskHits == 1)
    }

    @Test func anExpiredEntryIsRevalidatedWithA304() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { $0.defaultTimeToLive = 60 }
        let request = ImageRequest(url: server.url("photo.jpg"))
        #expect(try await pipeline.image(for: request).origin == .network)
        pipeline.removeAllCachedImages()
        date.advance(by: 61)
        let revalidated = try await pipeline.image(for: request)
        #expect(revalidated.origin == .disk)
        #expect(revalidated.isRevalidated)
        #expect(revalidated.bitmap.width == 640)
        #expect(server.responses(for: "/photo.jpg").map(\.status) == [200, 304])
        // The 304 made the entry fresh again: no third request.
        pipeline.removeAllCachedImages()
        let fresh = try await pipeline.image(for: request)
        #expect(fresh.origin == .disk && !fresh.isRevalidated)
        #expect(server.requestCount(for: "/photo.jpg") == 2)
        let stats = pipeline.statistics
        #expect(stats.revalidations == 1 && stats.notModified == 1 && stats.downloads == 1)
    }

    @Test func maxAgeFromTheServerSetsTheExpiry() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { $0.defaultTimeToLive = 5 }
        let request = ImageRequest(url: server.url("max-age/photo.jpg"))
        _ = try await pipeline.image(for: request)
        pipeline.removeAllCachedImages()
        date.advance(by: 30) // past the default, within the server's max-age=60
        #expect(try await pipeline.image(for: request).origin == .disk)
        pipeline.removeAllCachedImages()
        date.advance(by: 31)
        #expect(try await pipeline.image(for: request).isRevalidated)
        #expect(server.responses(for: "/max-age/photo.jpg").map(\.status) == [200, 304])
    }

    @Test func aChangedImageIsPickedUpAfterExpiry() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { $0.defaultTimeToLive = 60 }
        let request = ImageRequest(url: server.url("changing.jpg"))
        #expect(try await pipeline.image(for: request).bitmap.width == 100)
        // Different size, so a different ETag whatever the modification time.
        try TestImage.jpeg(width: 120, height: 60, seed: 4).write(to: server.root.appendingPathComponent("changing.jpg"))
        pipeline.removeAllCachedImages()
        #expect(try await pipeline.image(for: request).bitmap.width == 100, "still fresh: served from disk")
        pipeline.removeAllCachedImages()
        date.advance(by: 61)
        let changed = try await pipeline.image(for: request)
        #expect(changed.origin == .network)
        #expect(changed.bitmap.width == 120)
        #expect(server.responses(for: "/changing.jpg").map(\.status) == [200, 200])
        pipeline.removeAllCachedImages()
        #expect(try await pipeline.image(for: request).bitmap.width == 120, "the new image replaced the old on disk")
    }

    @Test func aThousandRequestsForFiftyURLsMakeFiftyGETs() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let urls = (0..<50).map { server.url("many/\($0).jpg") }
        let widths = try await withThrowingTaskGroup(of: Int.self) { group in
            for i in 0..<1_000 {
                group.addTask { try await pipeline.image(for: urls[i % 50]).bitmap.width }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(widths.count == 1_000 && widths.allSatisfy { $0 == 40 })
        // Exactly one GET per URL in nginx's access log, and nothing else for them.
        let logged = server.loggedPaths().filter { $0.hasPrefix("/many/") }
        #expect(logged.sorted() == (0..<50).map { "/many/\($0).jpg" }.sorted())
        let stats = pipeline.statistics
        #expect(stats.requests == 1_000)
        #expect(stats.downloads == 50 && stats.dataLoads == 50 && stats.loadsStarted == 50)
        #expect(stats.coalescedRequests + stats.memoryHits == 950)
    }

    /// The window the test above once fell into (release build, CI): a request looks in the
    /// memory cache, the load it would have joined stores its image there and ends, then the
    /// request asks the final image stage, finding no load in flight.
    @Test func aRequestArrivingAsItsLoadEndsIsAnsweredFromMemoryWithoutASecondLoad() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let request = ImageRequest(url: server.url("many/7.jpg"), thumbnail: 20)
        #expect(try await pipeline.image(for: request).origin == .network)
        let late = try await pipeline.finalImageStage.image(for: ImagePipeline.StageKey(request), priority: LoadPriority(.high))
        #expect(late.origin == .memory && late.container.bitmap.width == 20)
        let stats = pipeline.statistics
        #expect(stats.loadsStarted == 1 && stats.dataLoads == 1 && stats.diskHits == 0)
        // A request that may not read the memory cache still loads.
        let reload = ImageRequest(url: server.url("many/7.jpg"), thumbnail: 20, cachePolicy: .reloadIgnoringCaches)
        #expect(try await pipeline.finalImageStage.image(for: ImagePipeline.StageKey(reload), priority: LoadPriority(.high)).origin == .network)
        #expect(pipeline.statistics.loadsStarted == 2)
    }

    @Test func aCustomCacheKeyMakesTwoURLsOneImage() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let first = ImageRequest(url: try #require(URL(string: server.url("photo.jpg").absoluteString + "?sig=a")), cacheKey: "photo")
        let second = ImageRequest(url: try #require(URL(string: server.url("photo.jpg").absoluteString + "?sig=b")), cacheKey: "photo")
        #expect(try await pipeline.image(for: first).origin == .network)
        #expect(try await pipeline.image(for: second).origin == .memory)
        pipeline.removeAllCachedImages()
        #expect(try await pipeline.image(for: second).origin == .disk)
        #expect(server.requestCount(for: "/photo.jpg?sig=a") == 1)
        #expect(server.requestCount(for: "/photo.jpg?sig=b") == 0)
    }

    @Test func cachePolicies() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let url = server.url("photo.jpg")
        await #expect(throws: ImagePipelineError.self) {
            try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .returnCacheDataDontLoad))
        }
        #expect(server.requestCount(for: "/photo.jpg") == 0)
        _ = try await pipeline.image(for: url)
        #expect(try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .returnCacheDataDontLoad)).origin == .memory)
        let reloaded = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .reloadIgnoringCaches))
        #expect(reloaded.origin == .network)
        let revalidated = try await pipeline.image(for: ImageRequest(url: url, cachePolicy: .revalidate))
        #expect(revalidated.origin == .disk && revalidated.isRevalidated)
        #expect(server.responses(for: "/photo.jpg").map(\.status) == [200, 200, 304])
        #expect(pipeline.statistics.failures["notCached"] == 1)
    }

    @Test func noStoreIsNotWrittenToDisk() async throws {
        let (pipeline, disk) = try makePipeline(folder: folder, date: date)
        let url = server.url("no-store/photo.jpg")
        _ = try await pipeline.image(for: url)
        #expect(try disk.entry(forKey: url.absoluteString) == nil)
        pipeline.removeAllCachedImages()
        #expect(try await pipeline.image(for: url).origin == .network)
        #expect(server.requestCount(for: "/no-store/photo.jpg") == 2)
    }

    @Test func anHTMLBodyServedAsJPEGFailsAndIsNotCached() async throws {
        let (pipeline, disk) = try makePipeline(folder: folder, date: date)
        let url = server.url("html.jpg")
        await #expect {
            try await pipeline.image(for: url)
        } throws: { error in
            guard case ImagePipelineError.decodingFailed = error else { return false }
            return true
        }
        await pipeline.flushDataCache()
        #expect(try disk.entry(forKey: url.absoluteString) == nil)
        #expect(pipeline.cachedImage(for: ImageRequest(url: url)) == nil)
        #expect(pipeline.statistics.failures["unsupportedFormat"] == 1)
        _ = try? await pipeline.image(for: url)
        #expect(server.requestCount(for: "/html.jpg") == 2, "the next request asks the server again")
    }

    @Test func anHTTPErrorIsTyped() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        await #expect {
            try await pipeline.image(for: server.url("status/404"))
        } throws: { error in
            guard case ImagePipelineError.dataLoadingFailed(let underlying) = error,
                  case DataLoadingError.httpStatus(404, _, _) = underlying
            else { return false }
            return true
        }
        #expect(pipeline.statistics.failures["httpStatus"] == 1)
    }

    @Test func transientFailuresAreRetriedAndCounted() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date, retries: true)
        await #expect {
            try await pipeline.image(for: server.url("status/503"))
        } throws: { error in
            guard case ImagePipelineError.dataLoadingFailed(let underlying) = error,
                  case DataLoadingError.httpStatus(503, _, _) = underlying
            else { return false }
            return true
        }
        let attempts = RetryPolicy().maximumAttempts
        #expect(server.requestCount(for: "/status/503") == attempts)
        #expect(pipeline.statistics.retries == attempts - 1)
        #expect(pipeline.statistics.networkRequests == 1, "one load, retried inside the loader")
    }

    @Test func thumbnailsAreDecodedToFitAndShareTheDownload() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let url = server.url("photo.jpg")
        async let small = pipeline.image(for: ImageRequest(url: url, thumbnail: 100))
        async let large = pipeline.image(for: ImageRequest(url: url, thumbnail: 300))
        let (a, b) = try await (small, large)
        #expect(a.bitmap.width == 100 && a.bitmap.height == 75)
        #expect(b.bitmap.width == 300 && b.bitmap.height == 225)
        #expect(a.container.metadata.width == 640)
        #expect(server.requestCount(for: "/photo.jpg") == 1)
        #expect(pipeline.statistics.decodes == 2)
    }

    @Test func cancellingEveryRequestAbortsTheTransferAtTheServer() async throws {
        let (pipeline, disk) = try makePipeline(folder: folder, date: date)
        let url = server.url("slow/big.bin")
        let tasks = (0..<2).map { _ in pipeline.imageTask(with: ImageRequest(url: url)) }
        let progressed = Task {
            for await event in tasks[0].events { if case .progress(let p) = event, p.completed > 0 { return true } }
            return false
        }
        #expect(await progressed.value, "bytes were arriving")
        for task in tasks { task.cancel() }
        for task in tasks { await #expect(throws: CancellationError.self) { try await task.response } }
        // nginx logs the request when the connection closes: long before the minute the whole
        // body would take, and with fewer bytes than the body.
        #expect(await eventually(timeout: .seconds(20)) { server.responses(for: "/slow/big.bin").count == 1 })
        let logged = try #require(server.responses(for: "/slow/big.bin").first)
        #expect(logged.bytesSent < 240_000)
        #expect(try disk.entry(forKey: url.absoluteString) == nil, "nothing partial is cached")
    }

    @Test func progressIsReportedAsBytesArrive() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let size = try Data(contentsOf: server.root.appendingPathComponent("noise.png")).count
        let task = pipeline.imageTask(with: ImageRequest(url: server.url("paced/noise.png")))
        var reports: [ImageTask.Progress] = []
        var finished = false
        for await event in task.events {
            switch event {
            case .progress(let progress): reports.append(progress)
            case .finished(let result): finished = (try? result.get()) != nil
            case .updated: Issue.record("a first load is never stale, so never updated")
            case .preview: Issue.record("a PNG shows no preview")
            }
        }
        #expect(finished)
        #expect(reports.count >= 2, "a slow body arrives in several pieces")
        #expect(reports.last == ImageTask.Progress(completed: size, total: size))
        #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.completed < $1.completed })
    }

    /// With one network slot taken, waiting loads start by their priority now — a task raised
    /// while it waits goes first — and newest first among equals.
    @Test func networkLoadsStartInPriorityOrder() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { $0.maximumConcurrentDataLoads = 1 }
        // Holds the only slot until cancelled (its body would take a minute).
        let blocker = pipeline.imageTask(with: ImageRequest(url: server.url("slow/big.bin")))
        #expect(await eventually { pipeline.networkQueue.runningCount == 1 })
        var tasks: [ImageTask] = []
        for (index, priority) in [ImageRequest.Priority.low, .normal, .low, .normal].enumerated() {
            tasks.append(pipeline.imageTask(with: ImageRequest(url: server.url("many/\(index).jpg"), priority: priority)))
            #expect(await eventually { pipeline.networkQueue.waitingCount == index + 1 })
        }
        tasks[0].priority = .high
        #expect(tasks[0].priority == .high)
        blocker.cancel()
        for task in tasks { _ = try await task.response }
        #expect(server.loggedPaths().filter { $0.hasPrefix("/many/") } == ["/many/0.jpg", "/many/3.jpg", "/many/1.jpg", "/many/2.jpg"])
    }

    @Test func storeAllKeepsProcessedImagesOnDisk() async throws {
        let request = ImageRequest(url: server.url("photo.jpg"), thumbnail: 64, processors: [ImageProcessors.Crop(x: 0, y: 0, width: 32, height: 32)])
        do {
            let (pipeline, disk) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
            let first = try await pipeline.image(for: request)
            #expect(first.origin == .network && first.bitmap.width == 32)
            let diskKey = ImagePipeline.StageKey(request).image.diskKey
            #expect(await eventually { pipeline.dataCacheWriter?.entry(forKey: diskKey) != nil }, "encoded in the background")
            await pipeline.flushDataCache()
            #expect(try disk.entry(forKey: diskKey) != nil)
            disk.close()
        }
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
        let second = try await pipeline.image(for: request)
        #expect(second.origin == .disk)
        #expect(second.bitmap.width == 32 && second.bitmap.height == 32)
        #expect(pipeline.statistics.processorRuns == 0, "the processed image came from disk")
        #expect(server.requestCount(for: "/photo.jpg") == 1)
    }
}

import Foundation
import LoupeCaching
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// Cache control per request and in code, over real HTTP against the embedded origin: which
/// caches a request reads and writes, the lifetime of what it stores, `pipeline.cache`, and
/// trimming — by the app and under the process's memory pressure (cgroup v2 files).
@Suite final class ImagePipelineCacheControlTests: Sendable {
    /// A small JPEG the origin serves; its header is the metadata of the images stored in code.
    let photo: Data
    let folder = TemporaryFolder()
    let date = TestDate()

    init() throws {
        photo = try TestImage.jpeg(width: 64, height: 48, seed: 3)
    }

    deinit { folder.remove() }

    /// Runs `body` against an origin serving the photo, fresh for an hour.
    private func withOrigin(_ body: (OriginServer) async throws -> Void) async throws {
        let photo = photo
        try await OriginServer.run(handler: { _ in
            OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg"), ("Cache-Control", "max-age=3600")], body: photo)
        }, body)
    }

    @Test func aRequestSkippingWritesLeavesEveryCacheEmpty() async throws {
        try await withOrigin { origin in
            let (pipeline, disk) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
            var request = ImageRequest(url: origin.url("photo.jpg"), thumbnail: 32)
            request.cacheOptions = .skipCacheWrites
            let response = try await pipeline.image(for: request)
            #expect(response.bitmap.width == 32)
            await pipeline.flushDataCache()
            #expect(pipeline.memoryCacheUsage.count == 0)
            #expect(try disk.entry(forKey: request.dataKey) == nil, "no data on disk")
            #expect(try disk.entry(forKey: ImagePipeline.ImageKey(request).diskKey) == nil, "no processed image on disk")

            // The same image without the options is loaded again, then kept everywhere.
            let plain = ImageRequest(url: origin.url("photo.jpg"), thumbnail: 32)
            #expect(try await pipeline.image(for: plain).origin == .network)
            await pipeline.flushDataCache()
            #expect(origin.requestCount(for: "photo.jpg") == 2)
            #expect(pipeline.memoryCacheUsage.count == 1)
            #expect(try disk.entry(forKey: plain.dataKey)?.data == photo)
        }
    }

    @Test func readSwitchesSkipTheirCacheOnly() async throws {
        try await withOrigin { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            let url = origin.url("photo.jpg")
            _ = try await pipeline.image(for: ImageRequest(url: url))
            await pipeline.flushDataCache()

            var notMemory = ImageRequest(url: url)
            notMemory.cacheOptions = .skipMemoryCacheRead
            #expect(try await pipeline.image(for: notMemory).origin == .disk)
            #expect(origin.requestCount(for: "photo.jpg") == 1)

            var notData = ImageRequest(url: url)
            notData.cacheOptions = [.skipMemoryCacheRead, .skipDataCacheRead]
            #expect(try await pipeline.image(for: notData).origin == .network)
            #expect(origin.requestCount(for: "photo.jpg") == 2)
        }
    }

    @Test func aRequestsLifetimeBoundsWhatItStores() async throws {
        try await withOrigin { origin in
            let (pipeline, disk) = try makePipeline(folder: folder, date: date)
            var request = ImageRequest(url: origin.url("photo.jpg"))
            request.cacheLifetime = .seconds(60)
            _ = try await pipeline.image(for: request)
            await pipeline.flushDataCache()
            // The server said an hour; the request, a minute.
            let entry = try #require(try disk.entry(forKey: request.dataKey))
            let expiresIn = try #require(entry.expiresAt).timeIntervalSince(date.now())
            #expect(abs(expiresIn - 60) < 1)

            date.advance(by: 61)
            var fromDisk = request
            fromDisk.cacheOptions = .skipMemoryCacheRead
            #expect(try await pipeline.image(for: fromDisk).origin == .network, "expired after its lifetime: loaded again")
            #expect(origin.requestCount(for: "photo.jpg") == 2)

            // In memory: gone once its lifetime passes.
            var brief = ImageRequest(url: origin.url("photo.jpg"), thumbnail: 16)
            brief.cacheLifetime = .milliseconds(20)
            _ = try await pipeline.image(for: brief)
            #expect(await eventually(timeout: .seconds(10)) { pipeline.cache.image(for: brief) == nil })
        }
    }

    @Test func storedImagesAndDataAreLookedUpAndRemoved() async throws {
        try await withOrigin { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            let cache = pipeline.cache
            let image = ImageRequest(url: origin.url("rendered.jpg"))
            let container = ImageContainer(bitmap: try TestImage.bitmap(width: 8, height: 8, seed: 1),
                                           metadata: try ImageDecoder().metadata(of: photo), dataCount: 0)
            #expect(cache.storeImage(container, for: image))
            #expect(cache.image(for: image) == container)
            let hit = try await pipeline.image(for: image)
            #expect(hit.origin == .memory && hit.bitmap == container.bitmap)
            cache.removeImage(for: image)
            #expect(cache.image(for: image) == nil)

            let data = ImageRequest(url: origin.url("stored.jpg"))
            cache.storeData(photo, for: data)
            #expect(cache.data(for: data) == photo)
            let response = try await pipeline.image(for: data)
            #expect(response.origin == .disk && response.bitmap.width == 64)
            cache.removeData(for: data)
            #expect(cache.data(for: data) == nil)
            #expect(origin.totalRequests == 0, "nothing was loaded")
        }
    }

    @Test func trimToKeepsTheCostBound() throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let bitmap = try TestImage.bitmap(width: 20, height: 20, seed: 2)
        let metadata = try ImageDecoder().metadata(of: photo)
        for index in 0..<10 {
            let request = ImageRequest(url: URL(string: "http://127.0.0.1/\(index).jpg")!)
            #expect(pipeline.cache.storeImage(ImageContainer(bitmap: bitmap, metadata: metadata, dataCount: 0), for: request))
        }
        let each = 20 * 20 * 4
        #expect(pipeline.cache.memoryUsage == (10, 10 * each))
        pipeline.cache.trim(to: 3 * each + each / 2)
        #expect(pipeline.cache.memoryUsage.count == 3)
        #expect(pipeline.cache.memoryUsage.cost <= 3 * each + each / 2)
        #expect(pipeline.cache.image(for: ImageRequest(url: URL(string: "http://127.0.0.1/9.jpg")!)) != nil, "the newest stay")
    }

    @Test func memoryPressureInTheCgroupTrimsTheMemoryCache() async throws {
        let cgroup = folder.url.appendingPathComponent("cgroup")
        try FileManager.default.createDirectory(at: cgroup, withIntermediateDirectories: true)
        let events = cgroup.appendingPathComponent("memory.events")
        try Data("low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n".utf8).write(to: events)
        let each = 20 * 20 * 4
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { configuration in
            configuration.memoryCacheCostLimit = 8 * each
            configuration.memoryPressureTrimming = .init(pollInterval: .milliseconds(10), retainedFraction: 0.25, cgroupDirectory: cgroup)
        }
        #expect(pipeline.pressureMonitor != nil)
        let bitmap = try TestImage.bitmap(width: 20, height: 20, seed: 2)
        let metadata = try ImageDecoder().metadata(of: photo)
        for index in 0..<8 {
            pipeline.cache.storeImage(ImageContainer(bitmap: bitmap, metadata: metadata, dataCount: 0),
                                      for: ImageRequest(url: URL(string: "http://127.0.0.1/\(index).jpg")!))
        }
        #expect(pipeline.cache.memoryUsage.count == 8)
        // The group reached its `memory.high`: the kernel counts it.
        try Data("low 0\nhigh 1\nmax 0\noom 0\noom_kill 0\n".utf8).write(to: events)
        #expect(await eventually(timeout: .seconds(10)) { pipeline.cache.memoryUsage.cost <= 2 * each })
        #expect(pipeline.cache.memoryUsage.count == 2)
    }

    @Test func withoutTheCgroupFilesNothingWatches() throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date) { configuration in
            configuration.memoryPressureTrimming = .init(cgroupDirectory: folder.url.appendingPathComponent("absent"))
        }
        #expect(pipeline.pressureMonitor == nil)
        let (off, _) = try makePipeline(folder: TemporaryFolder(), date: date) { $0.memoryPressureTrimming = nil }
        #expect(off.pressureMonitor == nil)
    }
}

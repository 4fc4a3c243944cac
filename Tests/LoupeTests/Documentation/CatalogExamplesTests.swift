import Foundation
import Loupe
import LoupeTestSupport
import Testing

/// The examples of the Loupe DocC catalog's articles (Sources/Loupe/Loupe.docc) that the
/// README's and docs/library.md's do not already hold, each run as the article shows it
/// against the documentation's loopback site. `DocumentationExamplesCoverageTests` checks that
/// every block of the articles is compiled here or beside it.
@Suite struct CatalogExamplesTests {
    // MARK: GettingStarted.md

    @Test func aTaskWithAProcessorAndAPriority() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let url = site.url("/photo.jpg")

            let task = pipeline.imageTask(with: ImageRequest(url: url, processors: [ImageProcessors.Resize(width: 80, height: 80, mode: .fill)]))
            task.priority = .high
            for await event in task.events { print(event) }   // .progress(…), then .finished(result)

            let response = try await task.response
            #expect(response.bitmap.width == 80 && response.bitmap.height == 80 && task.priority == .high)
            await pipeline.shutdown()
        }
    }

    @Test func tokensURLRequestsAndProviders() async throws {
        try await DocumentationSite.run { site in
            let tokens = TokenStore(), database = CoverDatabase(), bookID = 3
            let url = site.url("/private/avatar.jpg")

            var configuration = ImagePipeline.Configuration()
            configuration.requestModifier = { request, reason in
                var request = request
                request.headers["Authorization"] = "Bearer \(try await tokens.token(refreshing: reason == .unauthorized))"
                return request
            }
            let pipeline = ImagePipeline(configuration: configuration)
            let avatar = try await pipeline.image(for: ImageRequest(
                urlRequest: DataRequest(url: url, headers: ["Accept": "image/webp"], timeout: .seconds(10)), thumbnail: 128))
            let cover = try await pipeline.image(for: ImageRequest(id: "cover/\(bookID)", thumbnail: 256) {
                try await database.cover(of: bookID)
            })

            #expect(avatar.bitmap.width == 128 && avatar.origin == .network)
            #expect(site.received.all.map(\.authorization) == ["Bearer stale", "Bearer fresh"])
            #expect(cover.origin == .provided && cover.bitmap.height == 256)
            #expect(await database.reads == 1)
            await pipeline.shutdown()
        }
    }

    // MARK: ThePipeline.md

    @Test func twoConsumersOfOneTask() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let url = site.url("/photo.jpg")
            let bar = Screen(), view = Screen()

            let task = pipeline.imageTask(with: ImageRequest(url: url))
            let progress = task.events, result = task.events
            Task { for await case .progress(let value) in progress { bar.show(value) } }
            Task { for await case .finished(let outcome) in result { view.show(try? outcome.get()) } }

            _ = try await task.response
            // The consumers' own tasks may still be reading: at most two seconds, until the last progress is shown.
            let lastProgress = "progress \(try DocumentationSite.landscape.get().count)"
            for _ in 0..<200 where view.all.isEmpty || bar.all.last != lastProgress { try await Task.sleep(for: .milliseconds(10)) }
            #expect(view.all == ["640x480"])
            #expect(bar.all.last == lastProgress)
            await pipeline.shutdown()
        }
    }

    @Test func previewsOfAProgressiveJPEG() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let url = site.url("/progressive/rocket.jpg")
            let view = Screen()

            var request = ImageRequest(url: url, thumbnail: 1024)
            request.previews = .progressive(every: .milliseconds(100))
            for await event in pipeline.imageTask(with: request).events {
                if case .preview(let preview) = event { view.show(preview.bitmap) }
                if case .finished(let result) = event { view.show(try? result.get().bitmap) }
            }

            // At least one preview, then the final image.
            #expect(view.all.count >= 2 && Set(view.all) == ["640x427"])
            await pipeline.shutdown()
        }
    }

    // MARK: Caching.md

    @Test func staleWhileRevalidateWithTheCopysAge() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await DocumentationSite.run { site in
            let url = site.url("/stale/avatar.jpg")
            let pipeline = try await site.pipelineWithStaleCopy(of: url, thumbnail: 128, in: folder)
            let screen = Screen()
            func show(_ bitmap: Bitmap, age: TimeInterval?) { screen.show(bitmap, age: age) }

            var request = ImageRequest(url: url, thumbnail: 128)
            request.staleWhileRevalidate = .always
            request.staleIfError = .upTo(24 * 3600)
            let task = pipeline.imageTask(with: request)
            for await event in task.events {
                if case .finished(.success(let response)) = event { show(response.bitmap, age: response.staleness?.age) }
                if case .updated(let newer) = event { show(newer.bitmap, age: nil) }
            }

            // The stale copy at once; the server's 304 (its version unchanged) sends no update.
            #expect(screen.all == ["128x96 stale"])
            #expect(site.received.all.count == 2)
            await pipeline.shutdown()
        }
    }

    @Test func skippingCacheWritesAndStoringData() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: folder.url)))
            let receiptURL = site.url("/receipt.jpg"), photoURL = site.url("/photo.jpg")
            let bytes = try TestImage.jpeg(width: 320, height: 240, seed: 5)
            _ = try await pipeline.image(for: ImageRequest(url: receiptURL))

            var request = ImageRequest(url: receiptURL)
            request.cacheOptions = .skipCacheWrites
            request.cacheLifetime = .seconds(600)
            pipeline.cache.storeData(bytes, for: ImageRequest(url: photoURL))
            let image = pipeline.cache.image(for: request)
            pipeline.cache.trim(to: 32 << 20)

            // The receipt loaded before is in memory; the stored bytes answer without a download.
            #expect(image?.bitmap.width == 640)
            var fromCache = ImageRequest(url: photoURL)
            fromCache.cachePolicy = .returnCacheDataDontLoad
            #expect(try await pipeline.image(for: fromCache).bitmap.width == 320)
            #expect(site.received.all.map(\.path) == ["/receipt.jpg"])
            await pipeline.shutdown()
        }
    }
}

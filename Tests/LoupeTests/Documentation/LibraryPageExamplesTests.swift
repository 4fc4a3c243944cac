import Foundation
import Loupe
import LoupeTestSupport
import Testing

/// The examples of docs/library.md, each run as the page shows it (between the fixtures it
/// uses and the checks of what it did) against the documentation's loopback site.
/// `DocumentationExamplesCoverageTests` checks that every block of the page is here, line for line.
@Suite struct LibraryPageExamplesTests {
    @Test func thePipeline() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await DocumentationSite.run { site in
            let cacheDirectory = folder.url
            let url = site.url("/photo.jpg")
            let upcomingURLs = [site.url("/next-1.jpg"), site.url("/next-2.jpg")]

            let pipeline = ImagePipeline(configuration: .init(
                dataCache: try DiskCache(directory: cacheDirectory)))       // HTTP(S) through AsyncHTTPClient, with retries

            let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: 256))
            print(response.bitmap.width, response.origin)                 // .memory, .disk, .network, .file or .provided

            let task = pipeline.imageTask(with: ImageRequest(url: url, processors: [ImageProcessors.Resize(width: 80, height: 80, mode: .fill)]))
            task.priority = .high                                         // reorders its waiting work, even while it waits
            for await event in task.events { print(event) }              // .progress(…), .finished(result), maybe .updated

            let prefetcher = ImagePrefetcher(pipeline: pipeline)          // low priority, 2 at a time
            prefetcher.startPrefetching(with: upcomingURLs)               // a cell asking meanwhile joins the load
            await pipeline.flushDataCache()                               // disk writes happen behind the loads

            #expect(response.bitmap.width == 256 && response.bitmap.height == 192 && response.origin == .network)
            let resized = try await task.response
            #expect(resized.bitmap.width == 80 && resized.bitmap.height == 80)
            // The cell that asks for a prefetched image joins its load or finds it cached.
            let next = try await pipeline.image(for: ImageRequest(url: upcomingURLs[0]))
            #expect(next.bitmap.width == 640)
            #expect(site.received.all.filter { $0.path == "/next-1.jpg" }.count == 1)
            #expect(site.received.all.filter { $0.path == "/photo.jpg" }.count == 1, "one download for both requests")
            await pipeline.shutdown()
        }
    }

    @Test func requestsHeadersTokensAndBytes() async throws {
        try await DocumentationSite.run { site in
            let tokens = TokenStore(), database = CoverDatabase()
            let url = site.url("/private/avatar.jpg"), traceID = "b7f3", bookID = 7
            let pngBytes = try TestImage.png(width: 400, height: 300)

            var configuration = ImagePipeline.Configuration()
            configuration.requestModifier = { request, reason in          // before each network load
                var request = request
                let token = reason == .unauthorized ? try await tokens.refresh() : try await tokens.current()
                request.headers["Authorization"] = "Bearer \(token)"
                return request
            }
            let pipeline = ImagePipeline(configuration: configuration)

            // A URL request value: method, headers (part of the cache key) and a timeout.
            let avatar = ImageRequest(
                urlRequest: DataRequest(url: url, headers: ["Accept": "image/webp", "X-Trace": traceID], timeout: .seconds(10)),
                headersIgnoredByCache: ["X-Trace"],                        // does not change the response
                thumbnail: 128)
            _ = try await pipeline.image(for: avatar)

            // Bytes under an identifier, and an async provider: the same decode, process and cache stages.
            _ = try await pipeline.image(for: ImageRequest(id: "chart/7", data: pngBytes, thumbnail: 256))
            _ = try await pipeline.image(for: ImageRequest(id: "cover/\(bookID)", thumbnail: 256) {
                try await database.cover(of: bookID)                        // one call for concurrent requests
            })

            // The stale token was refused, the refreshed one sent again with the request's own header.
            #expect(site.received.all.map(\.authorization) == ["Bearer stale", "Bearer fresh"])
            #expect(site.received.all.allSatisfy { $0.accept == "image/webp" })
            #expect(await tokens.refreshes == 1)
            #expect(pipeline.cache.image(for: avatar)?.bitmap.width == 128)
            #expect(pipeline.cache.image(for: ImageRequest(id: "chart/7", data: pngBytes, thumbnail: 256))?.bitmap.width == 256)
            let cover = try await pipeline.image(for: ImageRequest(id: "cover/\(bookID)", thumbnail: 256) {
                try await database.cover(of: bookID)
            })
            #expect(cover.origin == .memory && cover.bitmap.height == 256 && cover.bitmap.width == 171)
            #expect(await database.reads == 1)
            await pipeline.shutdown()
        }
    }

    @Test func staleCopiesAnswerNowAndUpdateLater() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await DocumentationSite.run { site in
            let avatarURL = site.url("/stale/avatar.jpg")
            let pipeline = try await site.pipelineWithStaleCopy(of: avatarURL, thumbnail: 128, in: folder)
            site.publishNewVersion()
            var shown: [String] = []
            func show(_ bitmap: Bitmap) { shown.append("\(bitmap.width)x\(bitmap.height)") }

            var request = ImageRequest(url: avatarURL, thumbnail: 128)
            request.staleWhileRevalidate = .always            // a stale disk copy now, the server asked meanwhile
            request.staleIfError = .upTo(7 * 24 * 3600)        // a week-old copy rather than an error when offline
            let task = pipeline.imageTask(with: request)
            for await event in task.events {
                switch event {
                case .progress, .preview: break
                case .finished(let result):
                    let response = try result.get()
                    show(response.bitmap)                          // at once, even if stale
                    if let staleness = response.staleness { print("\(Int(staleness.age)) s old", staleness.reason) }
                case .updated(let newer):
                    show(newer.bitmap)                             // the server had new bytes
                }
            }

            // The old landscape copy first, then the new portrait one.
            #expect(shown == ["128x96", "96x128"])
            #expect(site.received.all.count == 2)
            await pipeline.shutdown()
        }
    }

    @Test func resumableDownloads() async throws {
        try await DocumentationSite.run { site in
            let largePhotoURL = site.url("/large/photo.jpg")

            // The default HTTP loader keeps cut-off downloads (16 of them, 32 MiB in all); to choose the bounds:
            let resumable = ResumableDownloads(maximumCount: 8, maximumBytes: 64 << 20)
            let loader = RetryingDataLoader(AsyncHTTPClientDataLoader(resumableDownloads: resumable))
            let pipeline = ImagePipeline(configuration: .init(dataLoader: loader))
            let response = try await pipeline.image(for: ImageRequest(url: largePhotoURL))
            // Cut off at 80 %: the retry (or the next request, after the last caller left) sends
            // `Range: bytes=<received>-` and `If-Range: <ETag>`, and appends the 206 to what it kept.

            #expect(response.bitmap.width == 640 && response.bitmap.height == 480)
            let ranges = site.received.all.map(\.range)
            #expect(ranges.count == 2 && ranges.first == .some(nil))
            #expect(ranges.last??.hasPrefix("bytes=") == true && ranges.last??.hasSuffix("-") == true)
            await pipeline.shutdown()
        }
    }

    @Test func cacheControlPerRequestAndInCode() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: folder.url)))
            let receiptURL = site.url("/receipt.jpg"), avatarURL = site.url("/avatar.jpg")
            let chartURL = site.url("/chart.jpg"), photoURL = site.url("/photo.jpg")
            let chart = try TestImage.bitmap(width: 200, height: 100, seed: 3)
            let rendered = ImageContainer(bitmap: chart, metadata: ImageMetadata(format: .png, width: 200, height: 100), dataCount: 0)
            let downloadedElsewhere = try TestImage.jpeg(width: 320, height: 240)

            var request = ImageRequest(url: receiptURL, thumbnail: 512)
            request.cacheOptions = [.skipMemoryCacheWrite, .skipDataCacheWrite]   // a private image: no trace
            let receipt = try await pipeline.image(for: request)

            var avatar = ImageRequest(url: avatarURL, thumbnail: 96)
            avatar.cacheLifetime = .seconds(600)            // memory, and at most ten minutes fresh on disk

            pipeline.cache.storeImage(rendered, for: ImageRequest(url: chartURL))  // no load next time
            pipeline.cache.storeData(downloadedElsewhere, for: ImageRequest(url: photoURL))
            let kept = pipeline.cache.image(for: avatar)    // memory lookup, never loads
            pipeline.cache.removeData(for: ImageRequest(url: photoURL))
            pipeline.cache.trim(to: 32 << 20)               // the app knows memory is short

            var configuration = ImagePipeline.Configuration()
            configuration.memoryBudget = MemoryBudget(limit: 256 << 20)          // downloads + decodes in memory
            configuration.memoryPressureTrimming = .init(retainedFraction: 0.25)  // on by default; nil for off

            #expect(receipt.bitmap.width == 512 && pipeline.cache.image(for: request) == nil)
            #expect(kept == nil && site.received.all.map(\.path) == ["/receipt.jpg"])
            let chartResponse = try await pipeline.image(for: ImageRequest(url: chartURL))
            #expect(chartResponse.origin == .memory && chartResponse.bitmap == chart)
            // The photo's stored data was removed again: nothing to answer without loading.
            var fromCache = ImageRequest(url: photoURL)
            fromCache.cachePolicy = .returnCacheDataDontLoad
            await #expect(throws: ImagePipelineError.self) { try await pipeline.image(for: fromCache) }
            #expect(configuration.memoryBudget?.limit == 256 << 20 && configuration.memoryPressureTrimming?.retainedFraction == 0.25)
            await pipeline.shutdown()
        }
    }

    @Test func eventsForSeveralConsumers() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let url = site.url("/photo.jpg")
            let bar = Screen(), view = Screen()

            let task = pipeline.imageTask(with: ImageRequest(url: url))
            let forProgressBar = task.events                    // each access is a consumer of its own
            let forThumbnail = task.events
            Task { for await case .progress(let progress) in forProgressBar { bar.show(progress) } }
            Task { for await case .finished(let result) in forThumbnail { view.show(try? result.get()) } }
            // Later, after the end: the latest progress and the result, then the stream ends.
            for await event in task.events { print(event) }

            // The two consumers' tasks may still be running: at most two seconds, until the last progress is shown.
            let lastProgress = "progress \(try DocumentationSite.landscape.get().count)"
            for _ in 0..<200 where view.all.isEmpty || bar.all.last != lastProgress { try await Task.sleep(for: .milliseconds(10)) }
            #expect(view.all == ["640x480"])
            #expect(bar.all.last == lastProgress)
            await pipeline.shutdown()
        }
    }

    @Test func progressivePreviews() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let photoURL = site.url("/progressive/rocket.jpg")
            var shown: [String] = []
            func show(_ bitmap: Bitmap) { shown.append("\(bitmap.width)x\(bitmap.height)") }

            var request = ImageRequest(url: photoURL, thumbnail: 1024)
            request.previews = .progressive(every: .milliseconds(100))   // the default: every 250 ms
            for await event in pipeline.imageTask(with: request).events {
                switch event {
                case .preview(let preview): show(preview.bitmap)          // the scans so far, at 1024 px
                case .finished(let result): show(try result.get().bitmap) // replaces the previews
                case .progress, .updated: break
                }
            }

            // At least one preview, then the final image (the whole photo: it is under 1024 px).
            #expect(shown.count >= 2)
            #expect(Set(shown) == ["640x427"])
            await pipeline.shutdown()
        }
    }

    @Test func theCachingCoreForAnyKeyedResource() async throws {
        let geocoding = Geocoder()
        @Sendable func reverseGeocode(_ coordinate: Coordinate) async throws -> String { try await geocoding.name(of: coordinate) }
        let coordinate = Coordinate(latitude: 37.57, longitude: 126.98), nextCoordinate = Coordinate(latitude: 37.56, longitude: 126.99)

        // Any keyed resource: here the prefetching list's reverse geocoder, cached by text length.
        let places = MemoryCache<Coordinate, String>(configuration: .init(
            costLimit: 5_000_000, timeToLive: .seconds(3600)))
        let geocoder = SingleFlightLoader(memoryCache: places, cost: { $0.utf8.count }) { coordinate in
            try await reverseGeocode(coordinate)          // runs once per coordinate, however many ask
        }

        let name = try await geocoder.value(for: coordinate)   // hit: synchronous lookup, no actor hop
        geocoder.prefetch(nextCoordinate)                      // low priority, into memory
        geocoder.cancelPrefetch(nextCoordinate)                // a caller that joined it still gets its value

        #expect(name == "Jongno-gu")
        #expect(try await geocoder.value(for: coordinate) == "Jongno-gu")
        // The prefetch of the next place may still call the geocoder for it; this one was asked once.
        #expect(geocoding.asked.all.filter { $0 == coordinate }.count == 1, "a second ask is a memory hit")
        #expect(places.value(forKey: coordinate) == "Jongno-gu")
    }

    @Test func coloursPlaceholdersAndProcessors() throws {
        let bitmap = try TestImage.bitmap(width: 640, height: 480, seed: 4)
        let orientation = ExifOrientation.right

        let color = try bitmap.dominantColor()            // ColorThief's get_color(quality: 10), same integers
        let background = color.backgroundColor            // the poster feed: same hue, saturation 0.08, brightness 0.95
        let palette = try bitmap.palette(count: 8)        // exactly 8 (ColorThief's get_palette(8) gives 7)
        let thumbnail = try ImageProcessors.Resize(width: 256, height: 256, mode: .fill)
            .then(ImageProcessors.ApplyOrientation(orientation))          // a chain; `identifier` keys caches
            .process(bitmap)
        let hash = try BlurHash.encode(ImageProcessors.Resize(maxPixelSize: 32).process(bitmap))   // 4x3 components

        #expect(palette.count == 8)
        #expect(background != color)
        #expect(thumbnail.width == 256 && thumbnail.height == 256)
        #expect(hash.count == 28, "4x3 components: 1 + 1 + 4 + 2 × 11 characters")
    }
}

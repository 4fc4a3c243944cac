import ArgumentParser
import Foundation
import Logging
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeOrigin
import LoupeProcessing
import LoupeSimulation

/// `loupe demo`: the scenarios Loupe was built for (ARCHITECTURE.md) against an origin server embedded in the process (on a
/// free loopback port, with latency), with nothing to install or configure: ten views asking for
/// one image at once (ten views, one image), a list scrolled with prefetching (the prefetching list), a feed processed
/// into background colours in order (the poster feed), a menu whose sections fill in as their requests
/// answer (the sectioned menu). Prints what the pipeline did.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run the scenarios Loupe was built for (ARCHITECTURE.md) against an embedded local origin and report what the pipeline did.")

    @Option(help: ArgumentHelp("Origin latency per request, in milliseconds.", valueName: "ms"))
    var latency = 50

    @Option(help: ArgumentHelp("Cells in the scrolled list.", valueName: "n"))
    var cells = 240

    @Option(help: ArgumentHelp("Scrolling speed, cells per second.", valueName: "n"))
    var speed = 24.0

    @Option(help: ArgumentHelp("Items in the feed.", valueName: "n"))
    var feedItems = 48

    func validate() throws {
        guard (0...5_000).contains(latency) else { throw ValidationError("--latency must be 0-5000 ms, got \(latency)") }
        guard (16...5_000).contains(cells) else { throw ValidationError("--cells must be 16-5000, got \(cells)") }
        guard speed > 0, speed <= 1_000 else { throw ValidationError("--speed must be above 0 and at most 1000, got \(speed)") }
        guard (1...2_000).contains(feedItems) else { throw ValidationError("--feed-items must be 1-2000, got \(feedItems)") }
    }

    func run() async throws {
        let images = DemoImages()
        let latency = Duration.milliseconds(latency)
        try await OriginServer.run(handler: { request in
            await images.response(for: request.path, latency: latency)
        }, demonstrate)
    }

    private func demonstrate(origin: OriginServer) async throws {
        let cacheFolder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: cacheFolder) }

        print("loupe demo — origin http://127.0.0.1:\(origin.port) (\(self.latency) ms latency), disk cache in \(cacheFolder.path)\n")
        let disk = try DiskCache(directory: cacheFolder)
        let pipeline = ImagePipeline(configuration: Self.configuration(disk: disk))

        // Ten views, one image: ten image views ask for one menu image at the same moment.
        let menuURL = origin.url("/menu/burger.jpg")
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<10 { group.addTask { _ = try await pipeline.image(for: ImageRequest(url: menuURL, thumbnail: 128)) } }
            try await group.waitForAll()
        }
        let menuRequests = origin.requestCount(for: "/menu/burger.jpg")
        print("1. ten views, one image: \(menuRequests) request\(menuRequests == 1 ? "" : "s") to the origin, "
              + "10 images in \(Self.format(start.duration(to: .now)))")
        var checks = DemoChecks()
        checks.expect(menuRequests == 1, "ten views of one image made \(menuRequests) requests, not 1")

        // The prefetching list: a list scrolled at a steady speed, prefetching ahead of the screen.
        var scroll = ScrollSimulation.Configuration(cellCount: cells, speed: speed)
        scroll.thumbnail = 128
        let prefetcher = ImagePrefetcher(pipeline: pipeline, maximumConcurrentRequests: 4)
        let urls = (0..<cells).map { origin.url("/list/\($0).jpg") }
        let report = await ScrollSimulation(configuration: scroll).run(
            pipeline: pipeline, prefetcher: prefetcher, urls: urls,
            originRequests: { origin.requestCount(for: $0.path) })
        print(String(format: "2. a list of %d cells scrolled at %.0f cells/s with prefetching: %.1f %% of cells had their image when they appeared",
                     cells, speed, report.readyShare * 100))
        print("   \(report.originRequests) origin requests, \(report.duplicateDownloads) duplicates, \(report.wastedDownloads) wasted, "
              + "peak memory cache \(ByteCount.format(report.peakMemoryCacheBytes)), "
              + "prefetches \(prefetcher.statistics.completed) done / \(prefetcher.statistics.cancelled) stopped")
        checks.expect(report.duplicateDownloads == 0, "the scrolled list downloaded \(report.duplicateDownloads) images twice")

        // The poster feed: a feed of posters turned into background colours, in feed order, failures dropped.
        let feed = (0..<feedItems).map { FeedItem(id: $0, poster: origin.url(DemoImages.posterPath($0))) }
        let sequentialStart = ContinuousClock.now
        var sequential: [FeedCell] = []
        let sequentialPipeline = ImagePipeline(configuration: Self.configuration(disk: nil))
        for item in feed {
            if let cell = try? await item.cell(pipeline: sequentialPipeline) { sequential.append(cell) }
        }
        let sequentialTime = sequentialStart.duration(to: .now)
        let batchPipeline = ImagePipeline(configuration: Self.configuration(disk: nil))
        let batchStart = ContinuousClock.now
        let cellsInOrder = try await OrderedBatch(feed, maximumConcurrency: 8) { item in
            try await item.cell(pipeline: batchPipeline)
        }.run(failurePolicy: .dropFailed)
        let batchTime = batchStart.duration(to: .now)
        let failed = feed.count - cellsInOrder.count
        print("3. a feed of \(feed.count) posters to background colours: ordered batch of 8 in \(Self.format(batchTime)), "
              + "one by one \(Self.format(sequentialTime)) (\(String(format: "%.1f", sequentialTime / batchTime))× faster); "
              + "\(cellsInOrder.count) cells in feed order, \(failed) failed posters dropped, same result: \(cellsInOrder == sequential)")
        for cell in cellsInOrder.prefix(3) {
            print("   item \(cell.id): dominant \(cell.dominant.hex) -> background \(cell.background.hex)")
        }
        checks.expect(cellsInOrder == sequential, "the ordered batch's feed differs from the one-by-one feed")
        checks.expect(cellsInOrder.map(\.id) == cellsInOrder.map(\.id).sorted(), "the feed lost its order")

        // Ten views, one image again: the app restarts (a new pipeline, the memory cache gone) and the user
        // opens the list once more; the disk cache answers without asking the origin.
        await pipeline.flushDataCache()
        let statistics = pipeline.statistics
        let revisit = Array(urls.prefix(24))
        // Cells that scrolled away before their image arrived cancelled their loads: those were
        // never stored, and are the only ones the origin should be asked for again.
        let stored = revisit.filter { disk.containsFreshEntry(forKey: $0.absoluteString) }.count
        await pipeline.shutdown()
        let before = origin.totalRequests
        let reopened = try DiskCache(directory: cacheFolder)
        let restarted = ImagePipeline(configuration: Self.configuration(disk: reopened))
        for url in revisit { _ = try await restarted.image(for: ImageRequest(url: url, thumbnail: 128)) }
        let revisitRequests = origin.totalRequests - before
        print("4. after a restart, the first \(revisit.count) cells again: \(restarted.statistics.diskHits) from the disk cache, "
              + "\(revisitRequests) request\(revisitRequests == 1 ? "" : "s") to the origin")
        checks.expect(restarted.statistics.diskHits == stored && revisitRequests == revisit.count - stored,
                      "after a restart, \(restarted.statistics.diskHits) of the \(stored) images on disk were served from it")
        await restarted.shutdown()

        // The sectioned menu: a menu in three sections, each from its own request, filling in as they answer.
        let menu = await ShopMenuDemo(pipeline: ImagePipeline(configuration: Self.configuration(disk: nil)), origin: origin).run()
        let order = menu.settled.map { "\($0.menu.rawValue) \($0.failed ? "failed" : "loaded") at \(Self.format($0.after))" }
        print("5. a menu in three sections, each from its own request: \(order.joined(separator: ", ")); "
              + "\(menu.snapshots) snapshots, items per section \(menu.finalCounts), "
              + (menu.violation.map { "list view rejected: \($0)" } ?? "every change valid, each section with its own dishes"))
        checks.expect(menu.violation == nil, "the sectioned menu: \(menu.violation.map(String.init(describing:)) ?? "")")
        // Each section settles when its own request answers: in the order they answered (soup,
        // side, main unless the machine is busy), with side failed and [3, 2, 0] dishes.
        checks.expect(menu.settled.map(\.menu) == menu.answered && menu.answered.count == 3
                      && menu.settled.map(\.failed) == menu.answered.map { $0 == .side } && menu.finalCounts == [3, 2, 0],
                      "the sectioned menu settled as \(order) with \(menu.finalCounts) items; its requests answered "
                      + "\(menu.answered.map(\.rawValue)), side failing, with [3, 2, 0] dishes")

        print("""

            pipeline of steps 1-2: \(statistics.requests) requests — \(statistics.memoryHits) from memory, \(statistics.coalescedRequests) joined a load already running, \
            \(statistics.loadsStarted) loads started; \(statistics.diskHits) disk hits, \(statistics.downloads) downloads \
            (\(ByteCount.format(statistics.bytesDownloaded))), \(statistics.decodes) decodes
            origin: \(origin.totalRequests) requests in all
            """)
        try checks.finish()
    }

    private static func configuration(disk: DiskCache?) -> ImagePipeline.Configuration {
        var configuration = ImagePipeline.Configuration(dataCache: disk)
        configuration.logger = Logger(label: "loupe.demo") { SwiftLogNoOpLogHandler($0) }
        return configuration
    }

    private static func format(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
        return milliseconds >= 1_000 ? String(format: "%.2f s", milliseconds / 1_000) : String(format: "%.0f ms", milliseconds)
    }
}

/// What the demo promises; any broken promise makes it exit 1, so running it checks the scenarios (ARCHITECTURE.md).
private struct DemoChecks {
    private var failures: [String] = []

    mutating func expect(_ condition: Bool, _ failure: @autoclosure () -> String) {
        if !condition { failures.append(failure()) }
    }

    func finish() throws {
        guard !failures.isEmpty else {
            print("all checks passed")
            return
        }
        for failure in failures { StandardError.writeLine("loupe demo: check failed: \(failure)") }
        throw ExitCode(1)
    }
}

/// A feed entry of the poster feed: an exhibition with a poster.
private struct FeedItem: Sendable {
    let id: Int
    let poster: URL

    /// The processed cell: the poster's dominant colour and the poster feed's background colour.
    func cell(pipeline: ImagePipeline) async throws -> FeedCell {
        let response = try await pipeline.image(for: ImageRequest(url: poster, thumbnail: 256))
        let dominant = try response.bitmap.dominantColor()
        return FeedCell(id: id, dominant: dominant, background: dominant.backgroundColor)
    }
}

private struct FeedCell: Sendable, Equatable {
    let id: Int
    let dominant: RGBColor
    let background: RGBColor
}

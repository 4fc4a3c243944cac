import Foundation
import Loupe
import LoupeTestSupport
import Testing

/// The library examples of README.md and docs/lists.md, each run as the page shows it against
/// the documentation's loopback site. `DocumentationExamplesCoverageTests` checks that every
/// block is here, line for line.
@Suite struct ReadmeAndListsExamplesTests {
    /// The menu's three sections, as the README's sectioned list loads them.
    static func menuSections(_ api: MenuAPI) -> [SectionedLoader<Menu, Dish>.Section] {
        [Menu.main, .soup, .side].map { menu in .init(menu, placeholderCount: 2) { try await api.dishes(menu) } }
    }

    @Test func theReadmesLibraryTour() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let geocoding = Geocoder()
        @Sendable func reverseGeocode(_ coordinate: Coordinate) async throws -> String { try await geocoding.name(of: coordinate) }
        try await DocumentationSite.run { site in
            let cacheFolder = folder.url, url = site.url("/photo.jpg")
            let upcomingURLs = [site.url("/next-1.jpg"), site.url("/next-2.jpg")], urlsScrolledAway = [site.url("/next-2.jpg")]
            let feed = [
                Exhibition(title: "Hangeul", posterURL: site.url("/posters/hangeul.jpg")),
                Exhibition(title: "Lost", posterURL: site.url("/missing/poster.jpg")),
                Exhibition(title: "Celadon", posterURL: site.url("/posters/celadon.jpg")),
            ]
            let sections = Self.menuSections(MenuAPI())
            var counts: [[Int]] = []
            func apply(_ sections: [SectionedSnapshot<Menu, Dish>.Section], _ change: ListChange) {
                counts.append(sections.map(\.itemCount))
            }
            let coordinate = Coordinate(latitude: 37.58, longitude: 126.97)

            // An image: memory, then disk, then one download however many callers ask.
            let pipeline = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: cacheFolder)))
            let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: 256))
            print(response.bitmap.width, response.origin)          // .memory, .disk, .network, .file or .provided

            // Prefetching: a cell that asks while its prefetch runs joins it.
            let prefetcher = ImagePrefetcher(pipeline: pipeline)
            prefetcher.startPrefetching(with: upcomingURLs)
            prefetcher.stopPrefetching(with: urlsScrolledAway)

            // An ordered batch: 8 at a time, feed order kept, failed posters dropped.
            let cells = try await pipeline.imageBatch(for: feed, maximumConcurrency: 8) { ImageRequest(url: $0.posterURL) }
                .map { item, poster in Cell(item: item, background: try poster.bitmap.dominantColor().backgroundColor) }
                .run(failurePolicy: .dropFailed)

            // A sectioned list: placeholders first, each section as it arrives, data and change together.
            for await snapshot in SectionedLoader<Menu, Dish>(sections).snapshots() {
                apply(snapshot.sections, snapshot.change)
            }

            // Any keyed resource: one load per key, cached by cost and age.
            let places = SingleFlightLoader<Coordinate, String>(
                memoryCache: MemoryCache(configuration: .init(costLimit: 5_000_000, timeToLive: .seconds(3600))),
                cost: { $0.utf8.count }) { coordinate in try await reverseGeocode(coordinate) }
            let name = try await places.value(for: coordinate)

            await pipeline.shutdown()   // write what waits for the disk cache, release its folder

            #expect(response.bitmap.width == 256 && response.origin == .network)
            #expect(cells.map(\.item.title) == ["Hangeul", "Celadon"])
            #expect(counts.first == [2, 2, 2] && counts.last == [2, 1, 3] && counts.count == 4)
            #expect(name == "Jongno-gu")
            // The folder is released: another pipeline opens it and finds the photo on disk.
            let again = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: cacheFolder)))
            #expect(try await again.image(for: ImageRequest(url: url, thumbnail: 256)).origin == .disk)
            await again.shutdown()
        }
    }

    @Test func aFeedBatchAndAnOrderedBatch() async throws {
        try await DocumentationSite.run { site in
            let pipeline = ImagePipeline(configuration: .init())
            let feed = [
                Exhibition(title: "Joseon", posterURL: site.url("/posters/joseon.jpg")),
                Exhibition(title: "Gone", posterURL: site.url("/missing/gone.jpg")),
            ]
            let urls = [site.url("/a.jpg"), site.url("/b.jpg")]
            @Sendable func fetch(_ url: URL) async throws -> Int { try await pipeline.image(for: url).bitmap.width }

            // A feed's posters, 8 at a time; each poster's dominant colour becomes its cell's background.
            let cells = try await pipeline.imageBatch(for: feed, maximumConcurrency: 8) { ImageRequest(url: $0.posterURL) }
                .map { exhibition, poster in
                    ExhibitionCell(exhibition: exhibition, backgroundColor: try poster.bitmap.dominantColor().backgroundColor)
                }
                .run(failurePolicy: .dropFailed) { progress in print(progress.completed, "/", progress.total) }
            // feed order; entries whose poster failed (404, not an image) left out   (Tests/LoupeTests/FeedBatchTests.swift)

            for try await item in OrderedBatch(urls, operation: { try await fetch($0) }).results() {
                print(item.index, item.input, item.result)    // in input order, each as soon as it and all before it are done
            }

            #expect(cells.map(\.exhibition.title) == ["Joseon"])
            let widths = try await OrderedBatch(urls, operation: { try await fetch($0) }).run(failurePolicy: .failFast)
            #expect(widths == [640, 640])
            await pipeline.shutdown()
        }
    }

    @Test func aSectionedMenu() async throws {
        let api = MenuAPI()
        var counts: [[Int]] = []
        func apply(_ sections: [SectionedSnapshot<Menu, Dish>.Section], _ change: ListChange) {
            counts.append(sections.map(\.itemCount))
        }

        let loader = SectionedLoader<Menu, Dish>([
            .init(.main, placeholderCount: 4) { try await api.dishes(.main) },   // all three start at once
            .init(.soup, placeholderCount: 2) { try await api.dishes(.soup) },
            .init(.side, placeholderCount: 6) { try await api.dishes(.side) },
        ])
        for await snapshot in loader.snapshots() {
            // version 0: every section with placeholders; then one snapshot per section as it arrives
            apply(snapshot.sections, snapshot.change)      // data and its change together, on one turn
        }

        var view = ListChangeValidator()
        for await snapshot in loader.snapshots() {
            try view.apply(snapshot)                       // throws ListChangeViolation.itemCountMismatch, ...
        }

        #expect(counts.first == [4, 2, 6] && counts.last == [2, 1, 3] && counts.count == 4)
        #expect(view.itemCounts == [2, 1, 3] && view.version == 3)
    }
}

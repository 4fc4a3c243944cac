import Foundation
import Loupe
import LoupeLoading
import LoupeSimulation
import LoupeProcessing
import LoupeTestSupport

/// Lists against a loopback nginx with 50 ms of latency added before every request (a
/// `DelayedDataLoader` sleeping in front of AsyncHTTPClient, inside the pipeline's download slot,
/// as a distant server holds a connection):
/// - the poster feed: 200 posters, each turned into a background colour: one by one (the
///   seed's first version) vs an ordered batch at concurrency 8 (collected and streamed) vs the
///   ideal ⌈200 / 8⌉ × 50 ms (target: within 10 %);
/// - the scroll simulation at two speeds: cells ready on display (target ≥ 95 % at the slower),
///   duplicate downloads (target 0).
enum ListsBenchmark {
    private static let latency = Duration.milliseconds(50)
    private static let feedCount = 200
    private static let concurrency = 8
    private static let repeats = 3

    static func run() async throws {
        var files: [String: Data] = [:]
        for index in 0..<300 { files["posters/\(index).jpg"] = try PipelineBenchmark.photo(width: 200, height: 300, seed: index) }
        try await feed(files)
        try await scrolling(files)
    }

    // MARK: Feed

    private struct Entry: Sendable {
        let id: Int
        let posterURL: URL
    }

    private struct Cell: Sendable {
        let id: Int
        let background: RGBColor
    }

    private static func feed(_ files: [String: Data]) async throws {
        let server = try NginxServer.start(files: files)
        defer { server.stop() }
        let feed = (0..<feedCount).map { Entry(id: $0, posterURL: server.url("posters/\($0).jpg")) }
        print(String(format: "-- the poster feed: %d posters (200x300 JPEG) → dominant colour → background, 50 ms origin latency, medians of %d runs",
                     feedCount, repeats))

        /// A pipeline with nothing cached and room for `concurrency` downloads (the default is 6).
        func pipeline() -> ImagePipeline {
            var configuration = ImagePipeline.Configuration(dataLoader: DelayedDataLoader(AsyncHTTPClientDataLoader(), latency: latency))
            configuration.maximumConcurrentDataLoads = concurrency
            return ImagePipeline(configuration: configuration)
        }
        @Sendable func cell(_ entry: Entry, _ poster: ImageResponse) throws -> Cell {
            Cell(id: entry.id, background: try poster.bitmap.dominantColor().backgroundColor)
        }

        // The poster feed's first version: one poster after the other.
        let sequential = try await seconds("sequential (one by one)") {
            let pipeline = pipeline()
            var cells: [Cell] = []
            for entry in feed {
                guard let poster = try? await pipeline.image(for: entry.posterURL) else { continue }
                cells.append(try cell(entry, poster))
            }
            return cells.map(\.id)
        }
        let batch = try await seconds("OrderedBatch.run, concurrency \(concurrency)") {
            try await pipeline().imageBatch(for: feed, maximumConcurrency: concurrency) { ImageRequest(url: $0.posterURL) }
                .map(cell).run(failurePolicy: .dropFailed).map(\.id)
        }
        let streamed = try await seconds("OrderedBatch.results (streamed), concurrency \(concurrency)") {
            var ids: [Int] = []
            let batch = pipeline().imageBatch(for: feed, maximumConcurrency: concurrency) { ImageRequest(url: $0.posterURL) }.map(cell)
            for try await item in batch.results() { if let output = item.output { ids.append(output.id) } }
            return ids
        }
        let ideal = Double((feedCount + concurrency - 1) / concurrency) * latency.seconds
        print(String(format: "  ideal ⌈%d/%d⌉ × 50 ms                                    %6.3f s", feedCount, concurrency, ideal))
        for (name, value) in [("collected", batch), ("streamed", streamed)] {
            let overIdeal = (value / ideal - 1) * 100
            print(String(format: "  ratio: batch (%@) %.1f× faster than sequential; %+.1f %% over the ideal (target ≤ 10 %%: %@)",
                         name, sequential / value, overIdeal, overIdeal <= 10 ? "met" : "NOT met"))
        }

        /// Median wall-clock seconds of `repeats` runs of `body`, after a warm-up run; checks
        /// every run returns the whole feed in order.
        func seconds(_ name: String, _ body: () async throws -> [Int]) async throws -> Double {
            _ = try await body()
            var samples: [Double] = []
            for _ in 0..<repeats {
                let start = ContinuousClock.now
                let ids = try await body()
                samples.append(start.duration(to: .now).seconds)
                guard ids == Array(0..<feedCount) else { throw FixtureError("\(name): the feed came back incomplete or out of order") }
            }
            let median = Measurement.median(of: samples)
            print(String(format: "  %@ %6.3f s  (runs %.3f–%.3f)", name.padding(toLength: 56, withPad: " ", startingAt: 0),
                         median, samples.min() ?? 0, samples.max() ?? 0))
            return median
        }
    }

    // MARK: Scrolling

    private static func scrolling(_ files: [String: Data]) async throws {
        let cellCount = files.count
        print(String(format: "-- scroll simulation: %d cells, 8 on screen, 16 prefetched ahead (2 at a time), 50 ms origin latency, medians of %d runs",
                     cellCount, repeats))
        for speed in [20.0, 100.0] {
            var reports: [ScrollSimulation.Report] = []
            for _ in 0..<repeats {
                // A fresh origin per run: its request counts are the run's own.
                let server = try NginxServer.start(files: files)
                defer { server.stop() }
                let pipeline = ImagePipeline(configuration: .init(dataLoader: DelayedDataLoader(AsyncHTTPClientDataLoader(), latency: latency)))
                let prefetcher = ImagePrefetcher(pipeline: pipeline)
                let urls = (0..<cellCount).map { server.url("posters/\($0).jpg") }
                let simulation = ScrollSimulation(configuration: .init(cellCount: cellCount, speed: speed))
                let counts = OriginRequestCounts(server: server)
                reports.append(await simulation.run(pipeline: pipeline, prefetcher: prefetcher, urls: urls) {
                    counts.count(for: $0.path)
                })
            }
            let share = Measurement.median(of: reports.map(\.readyShare))
            let median = { (value: (ScrollSimulation.Report) -> Int) in Int(Measurement.median(of: reports.map { Double(value($0)) })) }
            let line = String(format: "  %3.0f cells/s: ready on display %5.1f %% (runs %@), duplicates %d (max %d), wasted %d, origin requests %d, peak memory cache %.1f MB, %.1f s",
                              speed, share * 100, reports.map { String(format: "%.1f", $0.readyShare * 100) }.joined(separator: "/"),
                              median(\.duplicateDownloads), reports.map(\.duplicateDownloads).max() ?? 0, median(\.wastedDownloads),
                              median(\.originRequests), Double(median(\.peakMemoryCacheBytes)) / 1e6,
                              Measurement.median(of: reports.map(\.duration.seconds)))
            print(line)
            if speed == 20 {
                print(String(format: "    target: ≥ 95 %% ready at the slower speed: %@; 0 duplicates: %@",
                             share >= 0.95 ? "met" : "NOT met", reports.allSatisfy { $0.duplicateDownloads == 0 } ? "met" : "NOT met"))
            } else {
                print(String(format: "    target: 0 duplicates: %@", reports.allSatisfy { $0.duplicateDownloads == 0 } ? "met" : "NOT met"))
            }
        }
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

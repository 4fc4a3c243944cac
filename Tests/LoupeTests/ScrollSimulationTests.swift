import Foundation
import LoupeLoading
import LoupeTestSupport
import Testing
@testable import Loupe

/// The scroll simulation against a real nginx behind 20 ms of added latency (a
/// `DelayedDataLoader` around AsyncHTTPClient): at a slow speed almost every cell is ready when
/// it appears, at any speed no image is downloaded twice, and prefetching stops with the scroll.
///
/// Thresholds leave room for a loaded 2-core machine: the schedule of which cell shows when is
/// fixed, only how fast images arrive varies, and the counts asserted exactly do not depend on it.
@Suite(.serialized) struct ScrollSimulationTests {
    static let cellCount = 100

    /// A fresh origin (so request counts are this test's alone) with one small JPEG per cell.
    func startOrigin() throws -> (NginxServer, [URL]) {
        var files: [String: Data] = [:]
        for index in 0..<Self.cellCount { files["cells/\(index).jpg"] = try TestImage.jpeg(width: 48, height: 32, seed: index) }
        let server = try NginxServer.start(files: files)
        return (server, (0..<Self.cellCount).map { server.url("cells/\($0).jpg") })
    }

    func simulate(_ configuration: ScrollSimulation.Configuration, server: NginxServer, urls: [URL]) async -> ScrollSimulation.Report {
        let pipeline = ImagePipeline(configuration: .init(
            dataLoader: DelayedDataLoader(AsyncHTTPClientDataLoader(), latency: .milliseconds(20))))
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        return await ScrollSimulation(configuration: configuration).run(pipeline: pipeline, prefetcher: prefetcher, urls: urls) {
            server.requestCount(for: $0.path)
        }
    }

    @Test func atASlowSpeedCellsAreReadyWhenTheyAppearAndNothingIsDownloadedTwice() async throws {
        let (server, urls) = try startOrigin()
        defer { server.stop() }
        // 20 cells a second, 16 prefetched ahead: each image has 0.8 s to arrive, 40× the latency.
        let report = await simulate(ScrollSimulation.Configuration(cellCount: Self.cellCount, speed: 20), server: server, urls: urls)
        #expect(report.cellsScrolledIn == Self.cellCount - 8, "every cell below the first screen scrolled in")
        #expect(report.duplicateDownloads == 0)
        #expect(report.readyShare >= 0.8, "ready on display: \(report.readyOnDisplay) of \(report.cellsScrolledIn)")
        #expect(report.originRequests == Self.cellCount, "every image once")
        #expect(report.wastedDownloads == 0, "scrolled to the end: every cell was shown")
        #expect(report.peakMemoryCacheBytes >= 48 * 32 * 4)
    }

    @Test func atAFlingNothingIsDownloadedTwiceAndPrefetchingEndsWithTheScroll() async throws {
        let (server, urls) = try startOrigin()
        defer { server.stop() }
        // 500 cells a second: cells pass in 16 ms, faster than any image arrives; the scroll
        // stops at cell 40, so cells beyond the prefetch window below it are never asked for.
        var configuration = ScrollSimulation.Configuration(cellCount: Self.cellCount, speed: 500)
        configuration.stopsAtCell = 40
        let report = await simulate(configuration, server: server, urls: urls)
        #expect(report.cellsScrolledIn == 40)
        #expect(report.duplicateDownloads == 0)
        #expect(report.wastedDownloads <= configuration.prefetchDistance, "only prefetches below the last screen")
        let neverNear = (40 + configuration.visibleCount + configuration.prefetchDistance)..<Self.cellCount
        #expect(neverNear.allSatisfy { server.requestCount(for: urls[$0].path) == 0 })
        #expect(report.readyShare < 1, "a fling outruns the network (else this test shows nothing)")
    }
}

import Foundation
import LoupeLoading
import LoupeSimulation
import LoupeTestSupport
import Testing
@testable import Loupe

/// The scroll simulation against a real nginx behind 20 ms of added latency (a
/// `DelayedDataLoader` around AsyncHTTPClient): at a slow speed most cells are ready when they
/// appear, at any speed no image is downloaded twice, and prefetching stops with the scroll.
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
        let counts = OriginRequestCounts(server: server)
        return await ScrollSimulation(configuration: configuration).run(pipeline: pipeline, prefetcher: prefetcher, urls: urls) {
            counts.count(for: $0.path)
        }
    }

    @Test func atASlowSpeedCellsAreReadyWhenTheyAppearAndNothingIsDownloadedTwice() async throws {
        let (server, urls) = try startOrigin()
        defer { server.stop() }
        // 10 cells a second over 60 cells, 16 prefetched ahead: each image has 1.6 s to arrive,
        // 80× the latency. Unloaded, every cell but the first few is ready (the benchmark holds
        // the 95 % target); the threshold leaves room for a machine busy with other tests.
        var configuration = ScrollSimulation.Configuration(cellCount: 60, speed: 10)
        configuration.prefetchDistance = 16
        let report = await simulate(configuration, server: server, urls: urls)
        #expect(report.cellsScrolledIn == 60 - 8, "every cell below the first screen scrolled in")
        #expect(report.duplicateDownloads == 0)
        #expect(report.readyShare >= 0.8, "ready on display: \(report.readyOnDisplay) of \(report.cellsScrolledIn)")
        // At most once each; a cell whose load had not reached the origin when it scrolled out
        // (a starved machine) is not requested at all, so not exactly once.
        #expect(report.originRequests <= 60 && report.originRequests >= report.readyOnDisplay)
        #expect(report.wastedDownloads == 0, "scrolled to the end: every cell was shown")
        let logged = Set(server.loggedPaths())
        #expect((60..<Self.cellCount).allSatisfy { !logged.contains(urls[$0].path) }, "cells beyond the list: never asked for")
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
        let logged = Set(server.loggedPaths())
        #expect(neverNear.allSatisfy { !logged.contains(urls[$0].path) })
        #expect(report.readyShare < 1, "a fling outruns the network (else this test shows nothing)")
    }

    /// What the simulation does when a cell appears, reduced to its core: the cell asks for its
    /// image and, in the same turn, its prefetch is stopped. The cell must join the running load
    /// before the prefetch leaves it, or the load is cancelled and started again (a duplicate
    /// download at the origin).
    @Test(arguments: 0..<20)
    func aCellAskingInTheSameTurnItsPrefetchStopsJoinsTheLoad(round: Int) async throws {
        let loader = GatedLocalLoader()
        let url = try temporaryFile(TestImage.jpeg(width: 30, height: 20, seed: round))
        defer { try? FileManager.default.removeItem(at: url) }
        var configuration = ImagePipeline.Configuration(dataLoader: loader)
        configuration.localDataLoader = loader
        let pipeline = ImagePipeline(configuration: configuration)
        let prefetcher = ImagePrefetcher(pipeline: pipeline)
        prefetcher.startPrefetching(with: [url])
        #expect(await eventually { loader.loads.count == 1 })
        let cell = pipeline.imageTask(with: ImageRequest(url: url))
        prefetcher.stopPrefetching(with: [url])
        loader.gate.open()
        #expect(try await cell.response.bitmap.width == 30)
        #expect(loader.loads.count == 1 && loader.cancellations.count == 0, "one load, joined, never cancelled")
    }
}

import Foundation
@testable import LoupeCaching
import LoupeLoading
import LoupeOrigin
import LoupeProcessing
import LoupeTestSupport
import Logging
import Testing
@testable import Loupe

/// What the pipeline logs through the logger of its configuration: each request's key, stages
/// and outcome at debug level, failures at warning.
@Suite final class ImagePipelineLoggingTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestDate()

    deinit { folder.remove() }

    @Test func aRequestLogsItsKeyStagesAndOutcomeAtDebug() async throws {
        let photo = try TestImage.jpeg(width: 320, height: 240, seed: 7)
        try await OriginServer.run(handler: { _ in .ok(photo) }) { origin in
            let store = CapturingLogHandler.Store()
            let (pipeline, _) = try makePipeline(folder: folder, date: date) {
                $0.logger = CapturingLogHandler.logger(level: .debug, store: store)
            }
            let url = origin.url("/photo.jpg")
            let request = ImageRequest(url: url, thumbnail: 64, processors: [ImageProcessors.Crop(x: 0, y: 0, width: 32, height: 32)])
            _ = try await pipeline.image(for: request)
            _ = try await pipeline.image(for: request)

            let key = "\(url.absoluteString) | loupe.thumbnail(64) | \(ImageProcessors.Crop(x: 0, y: 0, width: 32, height: 32).identifier)"
            let entries = store.all
            #expect(entries.allSatisfy { $0.level == .debug })
            #expect(entries.map(\.message) == ["loading", "data loaded", "decoded", "processed", "loaded", "loaded"])
            #expect(entries[0].metadata["key"] == key)
            #expect(entries[1].metadata["key"] == url.absoluteString)
            #expect(entries[1].metadata["stage"] == "data" && entries[1].metadata["origin"] == "network")
            #expect(entries[1].metadata["bytes"] == "\(photo.count)")
            #expect(entries[2].metadata["key"] == "\(url.absoluteString) | loupe.thumbnail(64)")
            #expect(entries[2].metadata["stage"] == "decode" && entries[2].metadata["size"] == "64x48")
            #expect(entries[3].metadata["stage"] == "process" && entries[3].metadata["size"] == "32x32")
            #expect(entries[4].metadata["key"] == key && entries[4].metadata["origin"] == "network")
            #expect(entries[5].metadata["key"] == key && entries[5].metadata["origin"] == "memory")
        }
    }

    @Test func aFailureIsAWarningWithItsKeyAndKind() async throws {
        try await OriginServer.run(handler: { _ in .status(404) }) { origin in
            let store = CapturingLogHandler.Store()
            // At info, debug messages are not even built; the warning still is.
            let (pipeline, _) = try makePipeline(folder: folder, date: date) {
                $0.logger = CapturingLogHandler.logger(level: .info, store: store)
            }
            let url = origin.url("/missing.jpg")
            await #expect(throws: ImagePipelineError.self) { try await pipeline.image(for: url) }
            let entries = store.all
            try #require(entries.count == 1)
            #expect(entries[0].level == .warning)
            #expect(entries[0].message == "failed")
            #expect(entries[0].metadata["key"] == "\(url.absoluteString) | loupe.thumbnail(full)")
            #expect(entries[0].metadata["kind"] == "httpStatus")
            #expect(entries[0].metadata["error"]?.contains("404") == true)
        }
    }

    /// Runs `body` with an origin that answers 404 once `gate` opens, and a pipeline logging at
    /// info into `store`, configured further by `configure`.
    func withHeld404(
        configure: @escaping (inout ImagePipeline.Configuration) -> Void = { _ in },
        _ body: (OriginServer, ImagePipeline, Gate, CapturingLogHandler.Store) async throws -> Void
    ) async throws {
        let gate = Gate()
        try await OriginServer.run(handler: { _ in
            await gate.waitIgnoringCancellation()
            return .status(404)
        }) { origin in
            let store = CapturingLogHandler.Store()
            let (pipeline, _) = try makePipeline(folder: folder, date: date) {
                $0.logger = CapturingLogHandler.logger(level: .info, store: store)
                configure(&$0)
            }
            try await body(origin, pipeline, gate, store)
        }
    }

    @Test func aFailureSharedByTenRequestsIsLoggedOnceAtTheConfiguredLevel() async throws {
        try await withHeld404(configure: { $0.failureLogLevel = .error }) { origin, pipeline, gate, store in
            let request = ImageRequest(url: origin.url("/missing.jpg"))
            // Called from a nonisolated context, each task has joined the shared load when
            // `imageTask` returns; the origin holds the 404 until all ten have.
            let tasks = (0..<10).map { _ in pipeline.imageTask(with: request) }
            gate.open()
            for task in tasks {
                await #expect(throws: ImagePipelineError.self) { try await task.response }
            }
            #expect(pipeline.statistics.loadsStarted == 1)
            #expect(pipeline.statistics.failures == ["httpStatus": 10])
            let entries = store.all
            #expect(entries.count == 1)
            #expect(entries.first?.level == .error)
            #expect(entries.first?.message == "failed")
            #expect(entries.first?.metadata["kind"] == "httpStatus")
        }
    }

    @Test func aFailedDataRequestIsLoggedOnce() async throws {
        try await withHeld404 { origin, pipeline, gate, store in
            let url = origin.url("/missing.jpg")
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<3 {
                    group.addTask { _ = try? await pipeline.data(for: ImageRequest(url: url)) }
                }
                #expect(await eventually { pipeline.statistics.dataLoads == 1 && origin.requestCount(for: "/missing.jpg") == 1 })
                // The data stage has one load; wait until every caller has joined it before the 404.
                #expect(await eventually { pipeline.dataStage.requestLoader.waiterCount(for: ImagePipeline.StageKey(ImageRequest(url: url)).data) == 3 })
                gate.open()
                await group.waitForAll()
            }
            #expect(pipeline.statistics.failures == ["httpStatus": 3])
            let entries = store.all
            #expect(entries.count == 1)
            #expect(entries.first?.level == .warning)
            #expect(entries.first?.metadata["key"] == url.absoluteString)
        }
    }

    @Test func aRetryIsLoggedAtDebugBeforeTheOutcome() async throws {
        let photo = try TestImage.jpeg(width: 40, height: 30)
        let calls = Counter()
        try await OriginServer.run(handler: { _ in calls.increment() == 1 ? .status(503) : .ok(photo) }) { origin in
            let store = CapturingLogHandler.Store()
            let (pipeline, _) = try makePipeline(folder: folder, date: date, retries: true) {
                $0.logger = CapturingLogHandler.logger(level: .debug, store: store)
            }
            _ = try await pipeline.image(for: origin.url("/flaky.jpg"))
            let entries = store.all
            #expect(entries.map(\.message) == ["loading", "retrying", "data loaded", "decoded", "loaded"])
            #expect(entries.allSatisfy { $0.level == .debug })
            #expect(entries[1].metadata["attempt"] == "1")
            #expect(entries[1].metadata["error"]?.contains("503") == true)
        }
    }
}

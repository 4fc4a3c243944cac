import Foundation
import LoupeCaching
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// Stale-while-revalidate and stale-if-error over real HTTP against the embedded origin: a disk
/// copy made stale by the test's clock, an origin that holds its answers until the test lets
/// them go (so "answered before the origin" is an order, not a time), changes its bytes, fails
/// with a `5xx` or is stopped.
@Suite final class ImagePipelineStaleTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestDate()

    deinit { folder.remove() }

    /// `/photo.jpg` with an `ETag` per version of its bytes, `304` to a matching `If-None-Match`,
    /// the `Cache-Control` the test sets, a forced status when set, and answers held while a
    /// hold is set.
    final class ChangingOrigin: Sendable {
        private struct State {
            var body: Data
            var version = 1
            var cacheControl: String
            var status: Int?
            var hold: Gate?
        }

        private let state: Locked<State>
        /// Each request's `If-None-Match` (`nil` for an unconditional one).
        let conditions = Recorder<String?>()

        init(body: Data, cacheControl: String = "max-age=60") {
            state = Locked(State(body: body, cacheControl: cacheControl))
        }

        /// Holds every answer from now until the returned gate opens.
        func holdAnswers() -> Gate {
            let gate = Gate()
            state.withLock { $0.hold = gate }
            return gate
        }

        func change(to body: Data) {
            state.withLock { state in
                state.body = body
                state.version += 1
            }
        }

        func answer(with status: Int?) {
            state.withLock { $0.status = status }
        }

        func handle(_ request: OriginRequest) async -> OriginResponse {
            conditions.record(request.header("If-None-Match"))
            if let hold = state.withLock({ $0.hold }) { await hold.waitIgnoringCancellation() }
            let current = state.withLock { $0 }
            if let status = current.status { return .status(status) }
            let etag = "\"v\(current.version)\""
            let headers = [("Cache-Control", current.cacheControl), ("ETag", etag)]
            if request.header("If-None-Match") == etag { return OriginResponse(status: 304, headers: headers) }
            return OriginResponse(status: 200, headers: headers + [("Content-Type", "image/jpeg")], body: current.body)
        }
    }

    /// Runs `body` with an origin serving `origin`'s photo and a pipeline that has loaded it
    /// once (fresh for 60 s unless `cacheControl` says otherwise), then forgotten it in memory and
    /// seen `secondsLater` pass: its disk copy is what the test's requests find.
    func withStaleCopy<Result>(
        _ origin: ChangingOrigin, secondsLater: TimeInterval = 120,
        _ body: (OriginServer, ImagePipeline, URL) async throws -> Result
    ) async throws -> Result {
        try await OriginServer.run(handler: { await origin.handle($0) }) { server in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            let url = server.url("/photo.jpg")
            #expect(try await pipeline.image(for: url).origin == .network)
            pipeline.removeAllCachedImages()
            date.advance(by: secondsLater)
            return try await body(server, pipeline, url)
        }
    }

    static func request(_ url: URL, whileRevalidating: ImageRequest.StalePolicy? = nil, ifError: ImageRequest.StalePolicy? = nil) -> ImageRequest {
        var request = ImageRequest(url: url)
        request.staleWhileRevalidate = whileRevalidating
        request.staleIfError = ifError
        return request
    }

    // MARK: Stale-while-revalidate

    @Test func aStaleCopyIsAnsweredBeforeTheOriginAndA304SendsNoUpdate() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        try await withStaleCopy(origin) { server, pipeline, url in
            let hold = origin.holdAnswers()
            let request = Self.request(url, whileRevalidating: .always)
            let task = pipeline.imageTask(with: request)
            let events = ImageTaskEventsTests.collect(task.events)
            // Answered while the origin still holds its answer to the revalidation.
            let response = try await task.response
            #expect(!hold.isOpen)
            #expect(response.origin == .disk && response.bitmap.width == 64)
            let staleness = try #require(response.staleness)
            #expect(staleness.age == 120 && staleness.timePastExpiry == 60)
            guard case .revalidating = staleness.reason else { Issue.record("reason \(staleness.reason)"); return }
            #expect(await eventually { server.requestCount(for: "/photo.jpg") == 2 }, "the revalidation reached the origin")

            hold.open()
            #expect(await events.value == [.finished(width: 64)], "a 304 sends no update")
            #expect(origin.conditions.all == [nil, "\"v1\""], "the revalidation was conditional")
            #expect(pipeline.dataStage.revalidations.count == 0)
            #expect(pipeline.hasFreshData(for: request), "the 304 renewed the disk copy's freshness")
            #expect(pipeline.statistics.notModified == 1)
        }
    }

    @Test func newBytesFromTheRevalidationAreSentAsAnUpdate() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        try await withStaleCopy(origin) { server, pipeline, url in
            let hold = origin.holdAnswers()
            origin.change(to: try TestImage.jpeg(width: 32, height: 24, seed: 2))
            let request = Self.request(url, whileRevalidating: .always)
            let task = pipeline.imageTask(with: request)
            let events = ImageTaskEventsTests.collect(task.events)
            let response = try await task.response
            #expect(!hold.isOpen)
            #expect(response.bitmap.width == 64 && response.staleness != nil, "the old copy, at once")

            hold.open()
            #expect(await events.value == [.finished(width: 64), .updated(width: 32)])
            // A late consumer gets both too.
            #expect(await ImageTaskEventsTests.collect(task.events).value == [.finished(width: 64), .updated(width: 32)])
            let next = try await pipeline.image(for: request)
            #expect(next.bitmap.width == 32 && next.origin == .memory && next.staleness == nil)
            #expect(server.requestCount(for: "/photo.jpg") == 2, "the update was read from the disk copy, not downloaded again")
        }
    }

    @Test func twoCallersOfOneStaleImageMakeOneRevalidation() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        try await withStaleCopy(origin) { server, pipeline, url in
            let hold = origin.holdAnswers()
            let first = try await pipeline.image(for: Self.request(url, whileRevalidating: .always))
            #expect(await eventually { server.requestCount(for: "/photo.jpg") == 2 })
            // A second caller, with another thumbnail, while the first one's revalidation is held.
            var second = Self.request(url, whileRevalidating: .always)
            second.thumbnail = 16
            let answer = try await pipeline.image(for: second)
            #expect(!hold.isOpen)
            #expect(first.staleness != nil && answer.staleness != nil && answer.bitmap.width == 16)
            #expect(pipeline.dataStage.revalidations.count == 1)
            hold.open()
            #expect(await eventually { pipeline.dataStage.revalidations.count == 0 })
            #expect(server.requestCount(for: "/photo.jpg") == 2, "one load, one revalidation")
        }
    }

    @Test func withoutPermissionAStaleCopyWaitsForTheOrigin() async throws {
        // No directive from the server and the default policy: revalidated before answering.
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        try await withStaleCopy(origin) { _, pipeline, url in
            let response = try await pipeline.image(for: ImageRequest(url: url))
            #expect(response.staleness == nil && response.isRevalidated)
            let never = try await pipeline.image(for: Self.request(url, whileRevalidating: .never, ifError: .never))
            #expect(never.staleness == nil)
        }
    }

    // MARK: The server's directives

    @Test func theServersStaleWhileRevalidateWindowBoundsTheStaleAnswer() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1),
                                    cacheControl: "max-age=60, stale-while-revalidate=30")
        // 20 s past expiry: inside the server's window, with the pipeline's default policy.
        try await withStaleCopy(origin, secondsLater: 80) { _, pipeline, url in
            let hold = origin.holdAnswers()
            let inside = try await pipeline.image(for: ImageRequest(url: url))
            #expect(!hold.isOpen)
            #expect(inside.staleness?.timePastExpiry == 20)
            // A request's own window smaller than the server's wins.
            let smaller = Task { try await pipeline.image(for: Self.request(url, whileRevalidating: .upTo(10))) }
            hold.open()
            let answered = try await smaller.value
            #expect(answered.staleness == nil && answered.isRevalidated)
            #expect(await eventually { pipeline.dataStage.revalidations.count == 0 })

            // Now fresh again for 60 s; 40 s past that is outside the server's 30.
            pipeline.removeAllCachedImages()
            date.advance(by: 100)
            let outside = try await pipeline.image(for: Self.request(url, whileRevalidating: .always))
            #expect(outside.staleness == nil && outside.isRevalidated, "the server's window bounds even .always")
        }
    }

    @Test func mustRevalidateForbidsStaleAnswers() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1),
                                    cacheControl: "max-age=60, must-revalidate, stale-while-revalidate=300, stale-if-error=300")
        try await withStaleCopy(origin) { _, pipeline, url in
            let revalidated = try await pipeline.image(for: Self.request(url, whileRevalidating: .always))
            #expect(revalidated.staleness == nil && revalidated.isRevalidated)
            pipeline.removeAllCachedImages()
            date.advance(by: 120)
            origin.answer(with: 503)
            await #expect(throws: ImagePipelineError.self) {
                try await pipeline.image(for: Self.request(url, ifError: .always))
            }
        }
    }

    @Test func theServersStaleIfErrorWindowBoundsTheStaleAnswer() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1),
                                    cacheControl: "max-age=60, stale-if-error=30")
        try await withStaleCopy(origin, secondsLater: 80) { _, pipeline, url in
            origin.answer(with: 503)
            let inside = try await pipeline.image(for: ImageRequest(url: url))
            #expect(inside.staleness?.timePastExpiry == 20 && inside.bitmap.width == 64)
            date.advance(by: 20)
            await #expect(throws: ImagePipelineError.self, "40 s past expiry is outside the server's 30") {
                try await pipeline.image(for: ImageRequest(url: url))
            }
        }
    }

    // MARK: Stale-if-error

    @Test func aStaleCopyIsAnsweredWithItsAgeWhenTheOriginIsDown() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        let server = try await OriginServer.start { await origin.handle($0) }
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let url = server.url("/photo.jpg")
        #expect(try await pipeline.image(for: url).origin == .network)
        await server.stop()
        pipeline.removeAllCachedImages()
        date.advance(by: 300)

        await #expect(throws: ImagePipelineError.self, "no stale answer unless allowed") {
            try await pipeline.image(for: ImageRequest(url: url))
        }
        let response = try await pipeline.image(for: Self.request(url, whileRevalidating: .never, ifError: .always))
        #expect(response.origin == .disk && response.bitmap.width == 64)
        let staleness = try #require(response.staleness)
        #expect(staleness.age == 300 && staleness.timePastExpiry == 240)
        guard case .refreshFailed(let error) = staleness.reason else { Issue.record("reason \(staleness.reason)"); return }
        #expect(error.reason == .network, "the connection was refused")
    }

    @Test func aServerErrorFallsBackToTheStaleCopyButANotFoundDoesNot() async throws {
        let origin = ChangingOrigin(body: try TestImage.jpeg(width: 64, height: 48, seed: 1))
        try await withStaleCopy(origin) { _, pipeline, url in
            let request = Self.request(url, ifError: .upTo(3600))
            origin.answer(with: 503)
            let response = try await pipeline.image(for: request)
            guard case .refreshFailed(let error)? = response.staleness?.reason else { Issue.record("not stale"); return }
            #expect(error.reason == .httpStatus)
            origin.answer(with: 404)
            await #expect(throws: ImagePipelineError.self, "a 404 says the image is gone: no stale copy") {
                try await pipeline.image(for: request)
            }
            // A window smaller than the copy's staleness refuses it.
            origin.answer(with: 503)
            await #expect(throws: ImagePipelineError.self) {
                try await pipeline.image(for: Self.request(url, ifError: .upTo(30)))
            }
        }
    }
}

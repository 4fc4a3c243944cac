import Foundation
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// A task's events followed by several consumers at once, by one that arrives after the end,
/// and by one that never reads: over real HTTP against the embedded origin, which drips its
/// body so the task reports progress, and holds its answer until the test has subscribed.
@Suite struct ImageTaskEventsTests {
    /// One consumer's view of an event, comparable across consumers.
    enum Seen: Equatable {
        case progress(ImageTask.Progress)
        case finished(width: Int?)
        case updated(width: Int)
        case preview(width: Int)
    }

    static func seen(_ event: ImageTask.Event) -> Seen {
        switch event {
        case .progress(let progress): .progress(progress)
        case .finished(let result): .finished(width: try? result.get().bitmap.width)
        case .updated(let response): .updated(width: response.bitmap.width)
        case .preview(let preview): .preview(width: preview.bitmap.width)
        }
    }

    /// Reads `events` to its end in a task of its own.
    static func collect(_ events: AsyncStream<ImageTask.Event>) -> Task<[Seen], Never> {
        Task {
            var seen: [Seen] = []
            for await event in events { seen.append(Self.seen(event)) }
            return seen
        }
    }

    /// Runs `run` with a task loading `body` from an origin that serves it at `/drip.png` in
    /// `chunkBytes` pieces once the returned gate opens: the test subscribes, then opens it.
    static func withHeldTask<Result>(
        loading body: Data, chunkBytes: Int, _ run: (ImageTask, Gate) async throws -> Result
    ) async throws -> Result {
        let gate = Gate()
        return try await OriginServer.run(handler: { _ in
            await gate.waitIgnoringCancellation()
            return OriginResponse(
                status: 200, headers: [("Content-Type", "image/png")], body: body,
                fault: .drip(chunkBytes: chunkBytes, interval: .milliseconds(1)))
        }) { origin in
            let pipeline = ImagePipeline(configuration: .init(dataLoader: AsyncHTTPClientDataLoader()))
            return try await run(pipeline.imageTask(with: ImageRequest(url: origin.url("/drip.png"))), gate)
        }
    }

    @Test func threeConsumersEachSeeEveryEventAndALateOneTheResult() async throws {
        let body = try TestImage.noisePNG(width: 120, height: 80)
        try await Self.withHeldTask(loading: body, chunkBytes: 4096) { task, gate in
            let consumers = (0..<3).map { _ in Self.collect(task.events) }
            gate.open()
            var views: [[Seen]] = []
            for consumer in consumers { views.append(await consumer.value) }

            let first = try #require(views.first)
            let progress = first.compactMap { if case .progress(let value) = $0 { value } else { nil } }
            #expect(progress.count >= 2, "the dripped body arrives in several pieces")
            #expect(progress.last == ImageTask.Progress(completed: body.count, total: body.count))
            #expect(zip(progress, progress.dropFirst()).allSatisfy { $0.completed < $1.completed })
            #expect(first.last == .finished(width: 120))
            #expect(first.count == progress.count + 1, "progress, then the result, nothing else")
            #expect(views[1] == first && views[2] == first, "every consumer saw the same events")

            // After the end: the latest progress and the result, then the stream ends.
            #expect(try await task.response.bitmap.width == 120)
            let late = await Self.collect(task.events).value
            #expect(late == [.progress(ImageTask.Progress(completed: body.count, total: body.count)), .finished(width: 120)])
        }
    }

    /// A consumer that never reads holds its newest events only: the oldest progress reports
    /// are dropped, the result never.
    @Test func aConsumerThatNeverReadsHoldsABoundedNumberOfEvents() async throws {
        let body = try TestImage.noisePNG(width: 200, height: 200)
        try await Self.withHeldTask(loading: body, chunkBytes: 512) { task, gate in
            let idle = task.events
            let reader = Self.collect(task.events)
            gate.open()
            let read = await reader.value
            let reports = read.filter { if case .progress = $0 { true } else { false } }
            try #require(reports.count > ImageTaskEvents.bufferLimit, "enough progress to overflow an idle consumer")

            var held: [Seen] = []
            for await event in idle { held.append(Self.seen(event)) }
            #expect(held.count == ImageTaskEvents.bufferLimit)
            #expect(held == Array(read.suffix(ImageTaskEvents.bufferLimit)), "the newest events, in order, ending with the result")
            #expect(held.last == .finished(width: 200))
        }
    }

    @Test func aConsumerThatStopsReadingIsForgotten() async throws {
        let body = try TestImage.noisePNG(width: 64, height: 64)
        try await Self.withHeldTask(loading: body, chunkBytes: 1024) { task, gate in
            let leaving = Self.collect(task.events)
            let staying = Self.collect(task.events)
            #expect(task.eventHub.consumerCount == 2)
            leaving.cancel()
            #expect(await leaving.value == [], "it left before any event")
            #expect(await eventually { task.eventHub.consumerCount == 1 }, "its stream is no longer fed")
            gate.open()
            #expect(await staying.value.last == .finished(width: 64), "the other is unaffected")
            #expect(task.eventHub.consumerCount == 0)
        }
    }
}

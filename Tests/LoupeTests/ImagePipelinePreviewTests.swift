import Foundation
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// Progressive previews over real HTTP: the embedded origin serves a corpus photo that
/// libjpeg-turbo encoded progressive (or baseline) at 50 KB/s, 5,000 bytes every 100 ms, once
/// the test has subscribed to the task's events.
@Suite struct ImagePipelinePreviewTests {
    /// 50 KB/s.
    static let rate = OriginResponse.Fault.drip(chunkBytes: 5_000, interval: .milliseconds(100))

    /// The largest mean difference per channel (of 255) allowed between a preview and the final
    /// image, both at the request's thumbnail size: the first preview holds the DC scan alone
    /// (each 8×8 block's average colour, smoothed), later ones come closer.
    static let firstPreviewBound = 12.0
    static let lastPreviewBound = 6.0

    /// What a task sent, in order.
    struct Seen {
        var previews: [ImageTask.Preview] = []
        var result: Result<ImageResponse, any Error>?
        var previewsAfterResult = 0
    }

    /// Runs `run` with a pipeline and a task loading `body` (at 50 KB/s, once the returned gate
    /// opens) for `request`'s thumbnail, processors and preview policy.
    static func withTask<Result>(
        loading body: Data, configure: (inout ImageRequest) -> Void = { _ in },
        _ run: (ImagePipeline, ImageTask, Gate) async throws -> Result
    ) async throws -> Result {
        let gate = Gate()
        return try await OriginServer.run(handler: { _ in
            await gate.waitIgnoringCancellation()
            return OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: body, fault: rate)
        }) { origin in
            let pipeline = ImagePipeline(configuration: .init(dataLoader: AsyncHTTPClientDataLoader()))
            var request = ImageRequest(url: origin.url("/photo.jpg"), thumbnail: 400)
            configure(&request)
            return try await run(pipeline, pipeline.imageTask(with: request), gate)
        }
    }

    /// Reads `events` to their end, calling `afterPreview` with the count of previews so far
    /// after each.
    static func collect(_ events: AsyncStream<ImageTask.Event>, afterPreview: (Int) -> Void = { _ in }) async -> Seen {
        var seen = Seen()
        for await event in events {
            switch event {
            case .preview(let preview):
                if seen.result != nil { seen.previewsAfterResult += 1 }
                seen.previews.append(preview)
                afterPreview(seen.previews.count)
            case .finished(let result): seen.result = result
            case .progress, .updated: break
            }
        }
        return seen
    }

    /// Loads `body` in a task for the request `configure` makes and reads its events to their
    /// end; returns them with the pipeline and the task.
    static func load(
        _ body: Data, configure: (inout ImageRequest) -> Void = { _ in }
    ) async throws -> (seen: Seen, pipeline: ImagePipeline, task: ImageTask) {
        try await withTask(loading: body, configure: configure) { pipeline, task, gate in
            let events = task.events
            gate.open()
            return (await collect(events), pipeline, task)
        }
    }

    @Test func aProgressiveJPEGShowsPreviewsThatResembleTheFinalImage() async throws {
        let body = try TestImage.photoJPEG(progressive: true)
        let (seen, pipeline, task) = try await Self.load(body)
        let final = try #require(try seen.result?.get())
        try #require(!seen.previews.isEmpty, "a 2 s download of ten scans shows at least one preview")
        #expect(seen.previewsAfterResult == 0)

        let first = try #require(seen.previews.first), last = try #require(seen.previews.last)
        #expect(first.scans >= 1 && first.receivedBytes < body.count)
        #expect(zip(seen.previews, seen.previews.dropFirst()).allSatisfy { $0.scans < $1.scans && $0.receivedBytes < $1.receivedBytes })
        #expect(last.scans <= 9, "the tenth scan ends with the image: the final image shows it")
        for preview in seen.previews {
            #expect(preview.bitmap.width == final.bitmap.width && preview.bitmap.height == final.bitmap.height,
                    "at the request's thumbnail size, as the final image")
            #expect(preview.isProcessed)
        }
        let firstDifference = PixelDifference(first.bitmap, final.bitmap, ignoringAlpha: true)
        let lastDifference = PixelDifference(last.bitmap, final.bitmap, ignoringAlpha: true)
        #expect(firstDifference.mean < Self.firstPreviewBound, "first preview (\(first.scans) scans): \(firstDifference.mean)")
        #expect(lastDifference.mean < Self.lastPreviewBound, "last preview (\(last.scans) scans): \(lastDifference.mean)")
        #expect((seen.previews.count...seen.previews.count + 1).contains(pipeline.statistics.previewDecodes),
                "each preview shown, and at most one more the final image overtook")
        #expect(pipeline.statistics.decodes == 1, "previews are counted apart from the image's one decode")

        // Previews never enter the caches: the memory cache holds the final image.
        #expect(pipeline.cachedImage(for: task.request)?.bitmap == final.bitmap)
        #expect(pipeline.previewers.isEmpty)
    }

    @Test func previewsRunTheRequestsCheapProcessorsAndSkipCostlyOnes() async throws {
        let body = try TestImage.photoJPEG(progressive: true)
        let cropped = try await Self.load(body) { $0.processors = [ImageProcessors.Crop(x: 10, y: 10, width: 100, height: 80)] }.seen
        let preview = try #require(cropped.previews.last)
        #expect(preview.isProcessed && preview.bitmap.width == 100 && preview.bitmap.height == 80)
        #expect(try cropped.result?.get().bitmap.width == 100)

        let blurred = try await Self.load(body) { $0.processors = [ImageProcessors.GaussianBlur(sigma: 12)] }.seen
        let unprocessed = try #require(blurred.previews.last)
        #expect(!unprocessed.isProcessed, "a wide blur costs more than a preview may take")
        #expect(try blurred.result?.get().bitmap.width == unprocessed.bitmap.width)
    }

    @Test func aBaselineJPEGShowsNoPreviewAndCostsNoDecode() async throws {
        let (seen, pipeline, _) = try await Self.load(try TestImage.photoJPEG(progressive: false))
        #expect(try seen.result?.get().bitmap.width == 400)
        #expect(seen.previews.isEmpty)
        #expect(pipeline.statistics.previewDecodes == 0)
    }

    @Test func previewsOffOrASmallThumbnailShowNone() async throws {
        let body = try TestImage.photoJPEG(progressive: true)
        // Off, and the default policy's thumbnails under 300 px.
        for (configure, width) in [({ $0.previews = .off }, 400), ({ $0.thumbnail = 128 }, 128)] as [((inout ImageRequest) -> Void, Int)] {
            let (seen, pipeline, _) = try await Self.load(body, configure: configure)
            #expect(try seen.result?.get().bitmap.width == width)
            #expect(seen.previews.isEmpty)
            #expect(pipeline.statistics.previewDecodes == 0)
        }
    }

    @Test func aCancelledTaskStopsItsPreviewsAndItsDownload() async throws {
        let body = try TestImage.photoJPEG(progressive: true)
        try await Self.withTask(loading: body) { pipeline, task, gate in
            let events = task.events
            gate.open()
            // At the first preview the task is cancelled, with most of the body to come.
            let seen = await Self.collect(events) { count in if count == 1 { task.cancel() } }
            let first = try #require(seen.previews.first)
            #expect(first.receivedBytes < body.count / 2)
            #expect(throws: CancellationError.self) { try seen.result?.get() }
            #expect(seen.previewsAfterResult == 0)
            #expect(pipeline.previewers.isEmpty, "the task's previewer is gone with it")
            #expect(pipeline.statistics.downloads == 0, "the download stopped with its only task")
            #expect(pipeline.statistics.decodes == 0)
        }
    }
}

import Foundation
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import Loupe

/// The pipeline's downloads resumed over real HTTP: a download its last caller left keeps its
/// bytes, and the next request for the image asks the origin only for the rest.
@Suite(.timeLimit(.minutes(2))) final class ImagePipelineResumeTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestDate()

    deinit { folder.remove() }

    @Test func aDownloadTheLastCallerLeftIsResumedByTheNextRequest() async throws {
        let image = try TestImage.noisePNG(width: 400, height: 400)
        try await OriginServer.run(handler: { request in
            var response = OriginResponse.file(image, for: request, etag: "\"p1\"", contentType: "image/png")
            // The whole file drips until its caller leaves; the rest is served at once.
            if request.header("Range") == nil { response.fault = .drip(chunkBytes: 32_000, interval: .milliseconds(20)) }
            return response
        }) { origin in
            let store = ResumableDownloads()
            let (pipeline, _) = try makePipeline(folder: folder, date: date) { configuration in
                configuration.dataLoader = AsyncHTTPClientDataLoader(resumableDownloads: store)
            }
            let request = ImageRequest(url: origin.url("noise.png"))
            let task = pipeline.imageTask(with: request)
            for await event in task.events {
                if case .progress(let progress) = event, progress.completed >= image.count / 4 { break }
            }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.response }
            // The loader keeps the bytes as its load ends, which the cancelled task does not wait for.
            #expect(await eventually { store.count == 1 })
            let kept = store.totalBytes

            let response = try await pipeline.image(for: request)
            #expect(response.bitmap.width == 400)
            let log = origin.requests(for: "noise.png")
            try #require(log.count == 2)
            #expect(log[1].header("Range") == "bytes=\(kept)-")
            #expect(log[1].header("If-Range") == "\"p1\"")
            #expect(kept >= image.count / 4 && kept < image.count)
            await pipeline.flushDataCache()
            #expect(try pipeline.configuration.dataCache?.data(forKey: request.dataKey) == image, "the disk cache holds the whole file")
        }
    }
}

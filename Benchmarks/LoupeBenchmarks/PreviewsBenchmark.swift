import Foundation
import Loupe
import LoupeOrigin
import LoupeTestSupport

/// `LoupeBenchmarks previews`: a ~4 MB progressive JPEG (a 3120×4208 corpus photo encoded
/// progressive by libjpeg-turbo) from a loopback origin limited to 1 MB/s (LoupeOrigin's drip,
/// 16 KB every 16 ms): how soon the first preview shows against the final image, at full size and
/// at a 1024 px thumbnail; and what previews cost the final image, previews on and off
/// interleaved run by run (A B A B), medians.
enum PreviewsBenchmark {
    static let rounds = 3

    static func run() async throws {
        let body = try TestImage.photoJPEG("gdk-pixbuf/issue70.jpg", progressive: true, quality: 100)
        let rate = OriginResponse.Fault.drip(chunkBytes: 16_384, interval: .milliseconds(16))
        print(String(format: "-- progressive JPEG of %.2f MB, 3120x4208, served at 1 MB/s (16 KB every 16 ms) on loopback; %d rounds, previews on and off interleaved",
                     Double(body.count) / 1_000_000, rounds))
        try await OriginServer.run(handler: { _ in
            OriginResponse(status: 200, headers: [("Content-Type", "image/jpeg")], body: body, fault: rate)
        }) { origin in
            for thumbnail in [nil, 1024] as [Int?] {
                var on: [Sample] = [], off: [Sample] = []
                for round in 0..<rounds {
                    on.append(try await load(origin.url("/photo-\(round)-on.jpg"), thumbnail: thumbnail, previews: .standard))
                    off.append(try await load(origin.url("/photo-\(round)-off.jpg"), thumbnail: thumbnail, previews: .off))
                }
                report(thumbnail: thumbnail, on: on, off: off)
            }
        }
    }

    struct Sample {
        var firstPreview: Double?
        var final: Double
        var previews: Int
        var previewDecodes: Int
    }

    /// One cold load through a fresh pipeline (no disk cache), timed from the task's start.
    static func load(_ url: URL, thumbnail: Int?, previews: ImageRequest.PreviewPolicy) async throws -> Sample {
        let pipeline = ImagePipeline(configuration: .init(dataLoader: AsyncHTTPClientDataLoader()))
        var request = ImageRequest(url: url, thumbnail: thumbnail)
        request.previews = previews
        let start = ContinuousClock.now
        let task = pipeline.imageTask(with: request)
        var sample = Sample(firstPreview: nil, final: 0, previews: 0, previewDecodes: 0)
        for await event in task.events {
            switch event {
            case .preview:
                sample.previews += 1
                if sample.firstPreview == nil { sample.firstPreview = seconds(start.duration(to: .now)) }
            case .finished(let result):
                _ = try result.get()
                sample.final = seconds(start.duration(to: .now))
            case .progress, .updated: break
            }
        }
        sample.previewDecodes = pipeline.statistics.previewDecodes
        await pipeline.shutdown()
        return sample
    }

    static func report(thumbnail: Int?, on: [Sample], off: [Sample]) {
        let size = thumbnail.map { "thumbnail \($0)" } ?? "full size"
        let firstPreview = Measurement.median(of: on.compactMap(\.firstPreview))
        let finalOn = Measurement.median(of: on.map(\.final)), finalOff = Measurement.median(of: off.map(\.final))
        func f(_ value: Double) -> String { String(format: "%.2f", value) }
        let counts = on.map { "\($0.previews)" }.joined(separator: "/"), decodes = on.map { "\($0.previewDecodes)" }.joined(separator: "/")
        let first = on.contains { $0.firstPreview != nil }
            ? "first preview \(f(firstPreview)) s (\(Int((100 * firstPreview / finalOn).rounded())) % of the final's time)" : "no preview"
        print("\(size): \(first), final \(f(finalOn)) s with previews (\(counts) previews, \(decodes) preview decodes), \(f(finalOff)) s without")
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs

/// `LoupeBenchmarks pipeline-plumbing`: the pipeline's thumbnail path with the network taken
/// out, against the bare decode + resize of the same bytes, so the difference is the
/// pipeline's plumbing alone (stages, tasks, queues, hops) — `pipeline-cold`'s HTTP client and
/// nginx add CPU that swings by more than the plumbing costs.
///
/// The pipeline loads from a ``MemoryDataLoader`` (bytes at once, through the data stage's
/// network queue as an HTTP load would), with no memory or disk cache; every URL is distinct,
/// so every load runs every stage. At concurrency 1 and 32, variants interleaved run by run
/// (A B A B), process CPU per load; then thumbnails/s with 1 and 2 processing workers. Beside
/// the bare decode, the same with only the hop the pipeline makes to run it off the cooperative
/// pool (a processing queue's worker thread), and with a hop to a Dispatch worker instead; and
/// the pipeline over the former, which is its plumbing beyond the hop it must make.
/// `pipeline-instructions` counts the same comparison in instructions.
enum PipelinePlumbing {
    private static let imageCount = 8

    private static var loads: Int {
        ProcessInfo.processInfo.environment["LOUPE_PLUMBING_LOADS"].flatMap(Int.init).map { max(1, $0) } ?? 1_000
    }

    private static var rounds: Int {
        ProcessInfo.processInfo.environment["LOUPE_PIPELINE_ROUNDS"].flatMap(Int.init).map { max(1, $0) } ?? 7
    }

    static func run() async throws {
        let images = try (0..<imageCount).map { try PipelineBenchmark.photo(width: 1024, height: 768, seed: $0, quality: 80) }
        print(String(format: "-- thumbnail path without the network: %d loads per run of %d in-memory JPEGs (1024x768, %d–%d bytes) → 256 px; variants interleaved run by run (A B A B), %d rounds after a warm-up",
                     loads, imageCount, images.map(\.count).min() ?? 0, images.map(\.count).max() ?? 0, rounds))
        let comparison = InterleavedComparison(rounds: rounds, loadsPerRun: loads)
        for concurrency in [1, 32] {
            let samples = try await comparison.compare("concurrency \(concurrency)", [
                bareVariant(images, concurrency: concurrency),
                bareVariant(images, concurrency: concurrency, hop: .dispatch),
                bareVariant(images, concurrency: concurrency, hop: .processingQueue),
                pipelineVariant(images, concurrency: concurrency),
            ])
            // The pipeline must make the processing hop (CPU work off the cooperative pool), so
            // over that hop alone is what its own plumbing costs.
            if samples.count == 4 {
                InterleavedComparison.printPairs("pipeline per pair vs the bare decode on a processing worker", samples[3], over: samples[2])
            }
        }
        let scaling = try await comparison.compare("scaling: processing workers, concurrency 32", [
            pipelineVariant(images, concurrency: 32, processing: 1),
            pipelineVariant(images, concurrency: 32, processing: 2),
        ])
        guard scaling.count == 2 else { return }
        InterleavedComparison.printSpeedup(
            "thumbnails/s, 2 workers ÷ 1 worker", slower: scaling[0], faster: scaling[1],
            ideal: "ideal 2×, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    }

    /// Where a bare variant's decode + resize runs.
    private enum Hop {
        /// On the calling task's thread.
        case none
        /// On a Dispatch worker thread.
        case dispatch
        /// Through a processing queue on its worker threads: the hop the pipeline itself makes,
        /// and nothing else of the pipeline.
        case processingQueue
    }

    /// The bare stages, on the calling thread or after only a hop (`hop`): what the hop alone costs.
    private static func bareVariant(_ images: [Data], concurrency: Int, hop: Hop = .none) -> InterleavedComparison.Variant {
        let decoder = ImageDecoder()
        let name = switch hop {
        case .none: "bare decode + 256 px, concurrency \(concurrency)"
        case .dispatch: "bare, each on a Dispatch worker, concurrency \(concurrency)"
        case .processingQueue: "bare, each on a processing worker, concurrency \(concurrency)"
        }
        return InterleavedComparison.Variant(name: name) {
            // As many slots as the pipeline's processing queue has by default: one a core.
            let queue = WorkQueue(maximumConcurrency: ProcessInfo.processInfo.activeProcessorCount)
            return InterleavedComparison.Run {
                try await PipelineBenchmark.forEach(Array(0..<loads), concurrency: concurrency) { index in
                    let data = images[index % images.count]
                    switch hop {
                    case .none:
                        blackHole(try PipelineBenchmark.bareThumbnail(data, decoder: decoder))
                    case .dispatch:
                        blackHole(try await runOffCooperativePool { try PipelineBenchmark.bareThumbnail(data, decoder: decoder) })
                    case .processingQueue:
                        blackHole(try await queue.runOffPool(priority: LoadPriority(.medium)) {
                            try PipelineBenchmark.bareThumbnail(data, decoder: decoder)
                        })
                    }
                }
            }
        }
    }

    private static func pipelineVariant(_ images: [Data], concurrency: Int, processing: Int? = nil) -> InterleavedComparison.Variant {
        let workers = processing.map { ", \($0) processing worker\($0 == 1 ? "" : "s")" } ?? ""
        return InterleavedComparison.Variant(name: "pipeline thumbnail 256, concurrency \(concurrency)\(workers)") {
            let pipeline = makePipeline(images, processing: processing)
            let requests = try thumbnailRequests(loads: loads)
            return InterleavedComparison.Run {
                try await pipelineThumbnails(pipeline, requests, concurrency: concurrency)
            }
        }
    }

    // MARK: The two workloads (shared with `pipeline-instructions`)

    /// A pipeline over `images` in memory, with no caches.
    static func makePipeline(_ images: [Data], processing: Int? = nil) -> ImagePipeline {
        let files = Dictionary(uniqueKeysWithValues: images.enumerated().map { ("photo-\($0.offset).jpg", $0.element) })
        var configuration = ImagePipeline.Configuration(dataCache: nil, dataLoader: MemoryDataLoader(files: files))
        configuration.isMemoryCacheEnabled = false
        configuration.maximumConcurrentDataLoads = 32
        if let processing { configuration.maximumConcurrentProcessing = processing }
        return ImagePipeline(configuration: configuration)
    }

    /// `loads` thumbnail requests, every URL distinct (so every load is cold), cycling through
    /// the images. Fresh for each run: a pipeline would otherwise still coalesce nothing, but
    /// the URLs are made outside the timed part.
    static func thumbnailRequests(loads: Int) throws -> [ImageRequest] {
        let stamp = UUID().uuidString
        return try (0..<loads).map { index in
            // Never fetched (the loader answers from memory); loopback all the same.
            var components = URLComponents()
            components.scheme = "http"
            components.host = "127.0.0.1"
            components.path = "/photo-\(index % imageCount).jpg"
            components.queryItems = [URLQueryItem(name: "n", value: "\(stamp)-\(index)")]
            guard let url = components.url else { throw BenchmarkError("no URL from \(components)") }
            return ImageRequest(url: url, thumbnail: 256)
        }
    }

    static func pipelineThumbnails(_ pipeline: ImagePipeline, _ requests: [ImageRequest], concurrency: Int) async throws {
        try await PipelineBenchmark.forEach(requests, concurrency: concurrency) { request in
            blackHole(try await pipeline.image(for: request).bitmap.width)
        }
    }
}

/// Runs `work` on a Dispatch worker thread and waits for it without blocking a thread of the
/// cooperative pool: the plain hop the pipeline's processing queue replaces (`runOffPool`),
/// kept here to measure what a hop alone costs.
private func runOffCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

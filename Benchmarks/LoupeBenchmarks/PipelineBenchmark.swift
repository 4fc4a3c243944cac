import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport

/// The pipeline against the pieces it is built from, in one run:
/// - a memory hit through `ImagePipeline.image(for:)` vs a direct `MemoryCache` lookup
///   (target: at most 3× the lookup);
/// - 1,000 distinct cold loads of 100 KB images from loopback nginx at concurrency 32, through
///   the pipeline vs the bare HTTP client, data only and with decoding and a 256 px thumbnail,
///   each with and without the disk cache (targets: thumbnail path within +5 % CPU of the bare
///   stages, disk cache within +15 % CPU of none);
/// - thumbnails/s with 1 and 2 processing workers.
///
/// The machine is shared, so the variants of a comparison run interleaved, run by run (A B A B),
/// and each run is compared with the reference run next to it: the ratio per pair, its median
/// and its spread, beside the load average. `pipeline-instructions` counts the single-threaded
/// part (the decode stage) in instructions, which the other builds do not move.
enum PipelineBenchmark {
    static func run() async throws {
        try await memoryHit()
        try await coldLoads()
    }

    // MARK: Memory hit

    static func memoryHit() async throws {
        print("-- memory hit: ImagePipeline.image(for:) vs MemoryCache.value(forKey:), 100,000 hits, medians of 9 runs")
        let data = try photo(width: 64, height: 48, seed: 1)
        let url = URL(fileURLWithPath: "/loupe-benchmark/photo.jpg")
        let fileURL = try temporaryFile(data)
        let pipeline = ImagePipeline(configuration: .init(dataLoader: LocalDataLoader()))
        // Load once from the file, then ask under the same identity from memory.
        let request = ImageRequest(url: fileURL)
        let container = try await pipeline.image(for: request).container
        let cache = MemoryCache<String, ImageContainer>()
        _ = cache.setValue(container, forKey: url.absoluteString)
        let key = url.absoluteString
        let operations = 100_000

        // The pipeline's own key has this shape: the data's identity, the thumbnail size and the
        // processors' identifiers. Building it from the request is part of the lookup.
        struct ImageKey: Hashable {
            var dataKey: String
            var thumbnail: Int?
            var processors: [String]
        }
        let imageKeyCache = MemoryCache<ImageKey, ImageContainer>()
        _ = imageKeyCache.setValue(container, forKey: ImageKey(dataKey: key, thumbnail: nil, processors: []))

        let direct = Measurement.run("MemoryCache lookup (String key)", operations: operations) {
            for _ in 0..<operations { blackHole(cache.value(forKey: key)) }
        }
        let sameKey = Measurement.run("MemoryCache lookup (pipeline-shaped key)", operations: operations) {
            for _ in 0..<operations {
                blackHole(imageKeyCache.value(forKey: ImageKey(dataKey: key, thumbnail: request.thumbnail, processors: [])))
            }
        }
        let piped = try await Measurement.run("ImagePipeline memory hit", operations: operations) {
            for _ in 0..<operations { blackHole(try await pipeline.image(for: request)) }
        }
        for reference in [direct, sameKey] {
            let ratio = piped.median / reference.median
            print(String(format: "  ratio: the pipeline's hit costs %.2f× the %@ (target ≤ 3×: %@)",
                         ratio, reference.name, ratio <= 3 ? "met" : "NOT met"))
        }
        try? FileManager.default.removeItem(at: fileURL)
    }

    // MARK: Cold loads

    private static let imageCount = 8
    private static let loadCount = 1_000
    static let concurrency = 32

    /// Rounds per comparison (after one untimed warm-up round); LOUPE_PIPELINE_ROUNDS overrides.
    private static var rounds: Int {
        ProcessInfo.processInfo.environment["LOUPE_PIPELINE_ROUNDS"].flatMap(Int.init).map { max(1, $0) } ?? 7
    }

    static func coldLoads() async throws {
        var files: [String: Data] = [:]
        for i in 0..<imageCount { files["photo-\(i).jpg"] = try hundredKilobyteJPEG(seed: i) }
        let sizes = files.values.map(\.count).sorted()
        let server = try NginxServer.start(files: files)
        defer { server.stop() }
        print(String(format: "-- cold loads: %d distinct URLs of %d JPEGs (%d–%d bytes, 1024x768) from nginx, concurrency %d; variants interleaved run by run (A B A B), %d rounds after a warm-up",
                     loadCount, imageCount, sizes.first ?? 0, sizes.last ?? 0, concurrency, rounds))
        var run = 0
        /// Distinct URLs every run (nginx ignores the query), so every pipeline load is cold.
        func urls() -> [URL] {
            run += 1
            return (0..<loadCount).map { server.baseURL.appendingPathComponent("photo-\($0 % imageCount).jpg").appending(queryItems: [URLQueryItem(name: "n", value: "\(run)-\($0)")]) }
        }
        let client = AsyncHTTPClientDataLoader()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let comparison = InterleavedComparison(rounds: rounds, loadsPerRun: loadCount)

        /// A variant loading a fresh batch of URLs with `load` each run.
        func variant(_ name: String, _ load: @escaping @Sendable (URL) async throws -> Void) -> InterleavedComparison.Variant {
            InterleavedComparison.Variant(name: name) {
                let batch = urls()
                return InterleavedComparison.Run { try await forEach(batch, load) }
            }
        }

        /// A variant through a pipeline of its own each run. The disk writes are part of the cost,
        /// so the cache is flushed inside the timed part; it is closed after it, but deleted only
        /// at the end: on this machine's ext4 (no journal), creating a file skips every inode
        /// deleted in the last seconds one by one (`recently_deleted`, seen with perf), so
        /// deleting 1,000 entry files here would slow the next run's disk cache.
        func pipelineVariant(
            _ name: String, diskCache: Bool, slots: Int, memoryCache: Bool = true, processing: Int? = nil,
            _ load: @escaping @Sendable (ImagePipeline, URL) async throws -> Void
        ) -> InterleavedComparison.Variant {
            InterleavedComparison.Variant(name: name) {
                let cache = diskCache ? try DiskCache(directory: folder.appendingPathComponent(UUID().uuidString)) : nil
                var configuration = ImagePipeline.Configuration(dataCache: cache, dataLoader: client)
                configuration.maximumConcurrentDataLoads = slots
                configuration.isMemoryCacheEnabled = memoryCache
                if let processing { configuration.maximumConcurrentProcessing = processing }
                let pipeline = ImagePipeline(configuration: configuration)
                let batch = urls()
                return InterleavedComparison.Run(
                    timed: {
                        try await forEach(batch) { url in try await load(pipeline, url) }
                        await pipeline.flushDataCache()
                    },
                    finish: { cache?.close() })
            }
        }

        // Data only.
        let bare = variant("bare AsyncHTTPClient, data only") { url in
            blackHole(try await client.loadData(for: DataRequest(url: url)).data.count)
        }
        func dataVariant(_ name: String, disk: Bool, slots: Int) -> InterleavedComparison.Variant {
            pipelineVariant(name, diskCache: disk, slots: slots) { pipeline, url in
                blackHole(try await pipeline.data(for: ImageRequest(url: url)).data.count)
            }
        }
        _ = try await comparison.compare("data", [
            bare,
            dataVariant("pipeline data, 32 slots, no disk cache", disk: false, slots: 32),
            dataVariant("pipeline data, 32 slots, disk cache", disk: true, slots: 32),
            dataVariant("pipeline data, 6 slots (default), disk cache", disk: true, slots: 6),
        ])

        // Decode + 256 px thumbnail.
        let decoder = ImageDecoder()
        let bareDecode = variant("bare AsyncHTTPClient + decode + 256 px") { url in
            let data = try await client.loadData(for: DataRequest(url: url)).data
            blackHole(try bareThumbnail(data, decoder: decoder))
        }
        func thumbnailVariant(_ name: String, disk: Bool, memory: Bool, processing: Int? = nil) -> InterleavedComparison.Variant {
            pipelineVariant(name, diskCache: disk, slots: 32, memoryCache: memory, processing: processing) { pipeline, url in
                blackHole(try await pipeline.image(for: ImageRequest(url: url, thumbnail: 256)).bitmap.width)
            }
        }
        // "No caches" is the like-for-like comparison: the bare client frees each thumbnail at
        // once, while the memory cache keeps 1,000 of them, whose fresh pages the kernel faults in.
        _ = try await comparison.compare("decode + 256 px thumbnail", [
            bareDecode,
            thumbnailVariant("pipeline, thumbnail 256, no caches", disk: false, memory: false),
            thumbnailVariant("pipeline, thumbnail 256, memory cache", disk: false, memory: true),
            thumbnailVariant("pipeline, thumbnail 256, memory + disk cache", disk: true, memory: true),
        ])

        // Scaling: the same thumbnails with one and two processing workers (ideal 2× on 2 cores).
        let scaling = try await comparison.compare("scaling: processing workers (no caches)", [
            thumbnailVariant("pipeline, thumbnail 256, 1 processing worker", disk: false, memory: false, processing: 1),
            thumbnailVariant("pipeline, thumbnail 256, 2 processing workers", disk: false, memory: false, processing: 2),
        ])
        guard scaling.count == 2 else { return }
        InterleavedComparison.printSpeedup(
            "thumbnails/s, 2 workers ÷ 1 worker", slower: scaling[0], faster: scaling[1],
            ideal: "ideal 2×, \(ProcessInfo.processInfo.activeProcessorCount) cores")
    }

    /// The bare stages of a thumbnail load, as the pipeline's decode stage runs them: decode to
    /// ≤ 256 px (JPEG DCT scaling), then resize to fit 256 px.
    static func bareThumbnail(_ data: Data, decoder: ImageDecoder) throws -> Bitmap {
        let image = try decoder.decode(data, options: DecodingOptions(maxPixelSize: 256, appliesOrientation: true, firstFrameOnly: true))
        return try ImageProcessors.Resize(maxPixelSize: 256).process(image.bitmap)
    }

    /// The 1, 5 and 15 minute load averages, as the kernel reports them.
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }

    /// Runs `body` for every item with `concurrency` workers.
    static func forEach<Item: Sendable>(
        _ items: [Item], concurrency: Int = concurrency, _ body: @escaping @Sendable (Item) async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: items.count, by: concurrency) { try await body(items[index]) }
                }
            }
            try await group.waitForAll()
        }
    }

    // MARK: Images

    /// A 1024×768 photo-like JPEG (gradients and grain) of about 100 KB.
    private static func hundredKilobyteJPEG(seed: Int) throws -> Data {
        var best = Data()
        for quality in stride(from: 30, through: 95, by: 5) {
            let data = try photo(width: 1024, height: 768, seed: seed, quality: quality)
            if abs(data.count - 100_000) < abs(best.count - 100_000) { best = data }
        }
        return best
    }

    /// A photo-like JPEG: gradients that depend on `seed`, and grain.
    static func photo(width: Int, height: Int, seed: Int, quality: Int = 85) throws -> Data {
        var state = UInt64(seed + 1) &* 0x9E37_79B9_7F4A_7C15
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let grain = Int(state >> 60) - 8
                let i = (y * width + x) * 4
                pixels[i] = UInt8(clamping: x * 255 / width + grain + seed * 20)
                pixels[i + 1] = UInt8(clamping: y * 255 / height + grain)
                pixels[i + 2] = UInt8(clamping: (x + y) * 128 / (width + height) + grain + 60)
            }
        }
        return try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .jpeg(quality: quality))
    }

    private static func temporaryFile(_ data: Data) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-bench-\(UUID().uuidString).jpg")
        try data.write(to: url)
        return url
    }
}

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
///   the pipeline vs the bare HTTP client (target: at most 20 % overhead), then the same with
///   decoding and a 256 px thumbnail on both sides.
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
    private static let concurrency = 32

    static func coldLoads() async throws {
        var files: [String: Data] = [:]
        for i in 0..<imageCount { files["photo-\(i).jpg"] = try hundredKilobyteJPEG(seed: i) }
        let sizes = files.values.map(\.count).sorted()
        let server = try NginxServer.start(files: files)
        defer { server.stop() }
        print(String(format: "-- cold loads: %d distinct URLs of %d JPEGs (%d–%d bytes, 1024x768) from nginx, concurrency %d, medians of 5 runs",
                     loadCount, imageCount, sizes.first ?? 0, sizes.last ?? 0, concurrency))
        var run = 0
        /// Distinct URLs every run (nginx ignores the query), so every pipeline load is cold.
        func urls() -> [URL] {
            run += 1
            return (0..<loadCount).map { server.baseURL.appendingPathComponent("photo-\($0 % imageCount).jpg").appending(queryItems: [URLQueryItem(name: "n", value: "\(run)-\($0)")]) }
        }
        let client = AsyncHTTPClientDataLoader()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }

        /// The pipeline of the run going on, flushed after the timed part so that one run's disk
        /// writes do not overlap the next run.
        final class Current {
            var pipeline: ImagePipeline?
        }
        let current = Current()

        func pipeline(diskCache: Bool, slots: Int, memoryCache: Bool = true) throws -> ImagePipeline {
            var configuration = ImagePipeline.Configuration(
                dataCache: diskCache ? try DiskCache(directory: folder.appendingPathComponent(UUID().uuidString)) : nil,
                dataLoader: client)
            configuration.maximumConcurrentDataLoads = slots
            configuration.isMemoryCacheEnabled = memoryCache
            let pipeline = ImagePipeline(configuration: configuration)
            current.pipeline = pipeline
            return pipeline
        }

        // Data only.
        let bare = try await time("bare AsyncHTTPClient") { urls in
            try await forEach(urls) { url in blackHole(try await client.loadData(for: DataRequest(url: url)).data.count) }
        }
        for (name, disk, slots) in [("pipeline data, 32 slots, no disk cache", false, 32),
                                    ("pipeline data, 32 slots, disk cache", true, 32),
                                    ("pipeline data, 6 slots (default), disk cache", true, 6)] {
            let subject = try await time(name) { urls in
                let pipeline = try pipeline(diskCache: disk, slots: slots)
                try await forEach(urls) { url in blackHole(try await pipeline.data(for: ImageRequest(url: url)).data.count) }
            }
            printOverhead(subject, bare)
        }

        // Decode + 256 px thumbnail.
        let decoder = ImageDecoder()
        let bareDecode = try await time("bare AsyncHTTPClient + decode + 256 px") { urls in
            try await forEach(urls) { url in
                let data = try await client.loadData(for: DataRequest(url: url)).data
                let image = try decoder.decode(data, options: DecodingOptions(maxPixelSize: 256, appliesOrientation: true, firstFrameOnly: true))
                blackHole(try Resize(maxPixelSize: 256).process(image.bitmap))
            }
        }
        // Without the memory cache too: the bare client frees each thumbnail at once, while the
        // pipeline keeps 1,000 of them (about 200 MB), whose fresh pages the kernel must fault in.
        for (name, disk, memory) in [("pipeline, thumbnail 256, 32 slots, no disk cache", false, true),
                                     ("pipeline, thumbnail 256, 32 slots, no caches", false, false),
                                     ("pipeline, thumbnail 256, 32 slots, disk cache", true, true)] {
            let subject = try await time(name) { urls in
                let pipeline = try pipeline(diskCache: disk, slots: 32, memoryCache: memory)
                try await forEach(urls) { url in blackHole(try await pipeline.image(for: ImageRequest(url: url, thumbnail: 256)).bitmap.width) }
            }
            printOverhead(subject, bareDecode)
        }

        /// Wall-clock seconds and CPU seconds (the whole process: client, pipeline, and the disk
        /// writes flushed after each run) per batch, medians of 5 runs.
        func time(_ name: String, _ body: ([URL]) async throws -> Void) async throws -> (wall: Double, cpu: Double) {
            try await body(urls()) // warm up connections and code
            await current.pipeline?.flushDataCache()
            var seconds: [Double] = []
            var cpu: [Double] = []
            for _ in 0..<5 {
                let batch = urls()
                let cpuBefore = processCPUSeconds()
                let start = ContinuousClock.now
                try await body(batch)
                let elapsed = start.duration(to: .now)
                await current.pipeline?.flushDataCache()
                cpu.append(processCPUSeconds() - cpuBefore)
                seconds.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
            let (wall, cpuMedian) = (Measurement.median(of: seconds), Measurement.median(of: cpu))
            print(String(format: "  %@ %6.0f loads/s  %6.0f µs CPU/load  (loads/s runs %.0f–%.0f)",
                         name.padding(toLength: 50, withPad: " ", startingAt: 0), Double(loadCount) / wall,
                         cpuMedian / Double(loadCount) * 1e6, Double(loadCount) / (seconds.max() ?? 1), Double(loadCount) / (seconds.min() ?? 1)))
            return (wall, cpuMedian)
        }
    }

    private static func printOverhead(_ subject: (wall: Double, cpu: Double), _ reference: (wall: Double, cpu: Double)) {
        let overhead = (subject.wall / reference.wall - 1) * 100
        let cpuOverhead = (subject.cpu / reference.cpu - 1) * 100
        print(String(format: "    overhead vs the bare client: time %+.0f %% (target ≤ 20 %%: %@), CPU %+.0f %%",
                     overhead, overhead <= 20 ? "met" : "NOT met", cpuOverhead))
    }

    /// Runs `body` for every URL with `concurrency` workers.
    private static func forEach(_ urls: [URL], _ body: @escaping @Sendable (URL) async throws -> Void) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                group.addTask {
                    for index in stride(from: worker, to: urls.count, by: concurrency) { try await body(urls[index]) }
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

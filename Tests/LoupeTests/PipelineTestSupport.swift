import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
@testable import Loupe

/// Encoded test images: a gradient whose colours depend on `seed`, so two seeds differ.
enum TestImage {
    static func bitmap(width: Int, height: Int, seed: Int) throws -> Bitmap {
        var pixels = [UInt8](repeating: 255, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = UInt8(truncatingIfNeeded: x * 255 / max(1, width - 1) &+ seed &* 40)
                pixels[i + 1] = UInt8(truncatingIfNeeded: y * 255 / max(1, height - 1) &+ seed &* 70)
                pixels[i + 2] = UInt8(truncatingIfNeeded: seed &* 97)
            }
        }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    /// A PNG of pseudo-random pixels: about 4 bytes per pixel whatever the compression.
    static func noisePNG(width: Int, height: Int) throws -> Data {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        let pixels = (0..<width * height * 4).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        return try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .png)
    }

    static func jpeg(width: Int, height: Int, seed: Int = 0) throws -> Data {
        try ImageEncoder().encode(bitmap(width: width, height: height, seed: seed), as: .jpeg(quality: 90))
    }

    static func png(width: Int, height: Int, seed: Int = 0) throws -> Data {
        try ImageEncoder().encode(bitmap(width: width, height: height, seed: seed), as: .png)
    }
}

/// A wall clock the test moves, shared by the pipeline (HTTP freshness) and its disk cache.
final class TestDate: Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    var now: @Sendable () -> Date { { [self] in date.withLock { $0 } } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// A fresh folder for a disk cache, removed by `remove()`.
struct TemporaryFolder: Sendable {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-pipeline-\(UUID().uuidString)")

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A pipeline over a disk cache in `folder`, on the test's clock, loading with AsyncHTTPClient.
func makePipeline(
    folder: TemporaryFolder, date: TestDate, retries: Bool = false,
    configure: (inout ImagePipeline.Configuration) -> Void = { _ in }
) throws -> (ImagePipeline, DiskCache) {
    let disk = try DiskCache(directory: folder.url, now: date.now)
    let loader: any DataLoading = retries
        ? RetryingDataLoader(AsyncHTTPClientDataLoader(), policy: RetryPolicy(), sleep: { _ in })
        : AsyncHTTPClientDataLoader()
    var configuration = ImagePipeline.Configuration(dataCache: disk, dataLoader: loader)
    configuration.now = date.now
    configure(&configuration)
    return (ImagePipeline(configuration: configuration), disk)
}

/// Loads `file` and `data` URLs for real, but only once its gate is open, and counts loads:
/// lets a test hold a data load in flight while it arranges joins and cancellations.
struct GatedLocalLoader: DataLoading {
    let gate = Gate()
    let loads = Counter()
    let cancellations = Counter()

    func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        loads.increment()
        do {
            try await gate.wait()
        } catch {
            cancellations.increment()
            throw error
        }
        return try await LocalDataLoader().loadData(for: request, progress: progress)
    }
}

/// A real processor that counts its runs, to observe which work was shared.
struct CountingProcessor: ImageProcessing {
    let base: any ImageProcessing
    let runs: Recorder<String>

    var identifier: String { base.identifier }

    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
        runs.record(identifier)
        return try base.process(bitmap)
    }
}

/// A `file` URL of `data` written to a fresh temporary file.
func temporaryFile(_ data: Data, name: String = "image") throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-\(UUID().uuidString)-\(name)")
    try data.write(to: url)
    return url
}

/// A processor that blocks its (Dispatch) thread until released: holds a processing slot.
struct BlockingProcessor: ImageProcessing {
    let release: DispatchSemaphore
    let started = Counter()

    var identifier: String { "test.blocking" }

    func process(_ bitmap: Bitmap) throws(ProcessingError) -> Bitmap {
        started.increment()
        release.wait()
        return bitmap
    }
}

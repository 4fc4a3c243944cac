import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import LoupeTestSupport
@testable import Loupe

/// A wall clock the test moves, shared by the pipeline (HTTP freshness) and its disk cache.
final class TestDate: Sendable {
    private let date = Locked(Date(timeIntervalSince1970: 1_800_000_000))

    var now: @Sendable () -> Date { { [self] in date.withLock { $0 } } }

    func advance(by seconds: TimeInterval) {
        date.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
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
    /// Loads in flight at once, at most.
    let inFlight = HighWaterMark()

    func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        loads.increment()
        inFlight.enter()
        defer { inFlight.leave() }
        do {
            try await gate.wait()
        } catch {
            cancellations.increment()
            throw error
        }
        return try await LocalDataLoader().loadData(for: request, progress: progress)
    }
}

/// Records which URLs `base` loads, in the order the loads start.
struct OrderRecordingLoader: DataLoading {
    let base: any DataLoading
    let started = Recorder<String>()

    func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        started.record(request.url.lastPathComponent)
        return try await base.loadData(for: request, progress: progress)
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

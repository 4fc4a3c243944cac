import Foundation
import Loupe

/// A list of image cells scrolled at a steady speed, driving a pipeline and a prefetcher the way
/// a collection view does, to measure what a user would see: how many cells already have their
/// image when they appear, and what the network did for it.
///
/// Each frame the visible window moves by `speed × frame`; a cell scrolling into it is counted as
/// ready if its image is in the memory cache; if not, it requests its image (and cancels the
/// request if it scrolls out before the image arrives, as a reused cell does). Cells in the
/// prefetch window ahead of the visible one are prefetched; a cell's prefetch is stopped when
/// the cell appears (its own request joins the load if it still runs). When the scroll ends,
/// prefetching stops, as when the user leaves the list.
///
/// The schedule (which cell is visible in which frame) is fixed by the configuration; what
/// varies with the machine is only how fast images arrive. Frames last `frameDuration`; a
/// machine too busy to keep up delays the rest of the scroll rather than compressing it.
public struct ScrollSimulation: Sendable {
    /// The list and how it is scrolled.
    public struct Configuration: Sendable {
        /// Cells in the list (one image each).
        public var cellCount: Int
        /// The scroll stops when this cell reaches the top of the screen; `nil` scrolls to the
        /// end. Cells prefetched below where it stops are never shown: what the origin sent for
        /// them is wasted.
        public var stopsAtCell: Int?
        /// Cells on screen at once.
        public var visibleCount = 8
        /// Scrolling speed in cells per second.
        public var speed: Double
        /// How many cells ahead of the screen are prefetched.
        public var prefetchDistance = 16
        /// One frame.
        public var frameDuration: Duration = .milliseconds(16)
        /// The longest side cells ask for; `nil` for full size.
        public var thumbnail: Int?

        /// A list of `cellCount` cells scrolled at `speed` cells per second.
        public init(cellCount: Int, speed: Double) {
            self.cellCount = cellCount
            self.speed = speed
        }
    }

    /// What the user saw and what the network did.
    public struct Report: Sendable, Equatable {
        /// Cells that scrolled into view (the first screen, on display before anything could
        /// load, is not counted).
        public var cellsScrolledIn = 0
        /// Of those, the cells whose image was in memory when they appeared.
        public var readyOnDisplay = 0
        /// Requests the origin received beyond one per image (must be 0).
        public var duplicateDownloads = 0
        /// Images the origin sent for cells that never appeared.
        public var wastedDownloads = 0
        /// Requests the origin received in all.
        public var originRequests = 0
        /// The memory cache's highest cost (bytes of pixels) during the scroll.
        public var peakMemoryCacheBytes = 0
        /// How long the scroll took.
        public var duration: Duration = .zero

        /// `readyOnDisplay / cellsScrolledIn`.
        public var readyShare: Double { cellsScrolledIn == 0 ? 0 : Double(readyOnDisplay) / Double(cellsScrolledIn) }
    }

    /// The list's configuration.
    public var configuration: Configuration

    /// A simulation of `configuration`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Scrolls through `urls` (one per cell; at least `cellCount`) with `pipeline` and
    /// `prefetcher`, then asks `originRequests` how many requests the origin received per URL
    /// (asynchronously: an origin may log a request a moment after its client saw the response).
    public func run(
        pipeline: ImagePipeline, prefetcher: ImagePrefetcher, urls: [URL],
        originRequests: @Sendable (URL) async -> Int
    ) async -> Report {
        let cellCount = min(configuration.cellCount, urls.count)
        let requests = urls.prefix(cellCount).map { ImageRequest(url: $0, thumbnail: configuration.thumbnail) }
        var report = Report()
        var shown = [Bool](repeating: false, count: cellCount)
        var prefetched = 0 // cells below this index have been handed to the prefetcher
        var cellTasks: [Int: ImageTask] = [:]
        let clock = ContinuousClock()
        let start = clock.now
        var due = start
        // The top cell of the last frame; the frame count follows from it.
        let lastTop = min(configuration.stopsAtCell ?? cellCount, max(0, cellCount - configuration.visibleCount))
        let frames = Int((Double(lastTop) / configuration.speed) / configuration.frameDuration.seconds) + 1
        for frame in 0...frames {
            let top = min(lastTop, Int(Double(frame) * configuration.frameDuration.seconds * configuration.speed))
            let visible = top..<min(cellCount, top + configuration.visibleCount)
            // Cells that scrolled out: their unfinished requests are cancelled.
            for (index, task) in cellTasks where !visible.contains(index) {
                task.cancel()
                cellTasks[index] = nil
            }
            var appeared: [ImageRequest] = []
            for index in visible where !shown[index] {
                shown[index] = true
                let isReady = pipeline.cachedImage(for: requests[index]) != nil
                if frame > 0 {
                    report.cellsScrolledIn += 1
                    if isReady { report.readyOnDisplay += 1 }
                }
                if !isReady { cellTasks[index] = pipeline.imageTask(with: requests[index]) }
                appeared.append(requests[index])
            }
            // The cell's own request has joined the prefetch's load if it still runs.
            prefetcher.stopPrefetching(with: appeared)
            let prefetchEnd = min(cellCount, visible.upperBound + configuration.prefetchDistance)
            if prefetched < prefetchEnd {
                prefetcher.startPrefetching(with: Array(requests[max(prefetched, visible.upperBound)..<prefetchEnd]))
                prefetched = prefetchEnd
            }
            report.peakMemoryCacheBytes = max(report.peakMemoryCacheBytes, pipeline.memoryCacheUsage.cost)
            // The next frame is due one frame after this one was. A frame that starts more than a
            // frame late (a stalled, overloaded machine) moves the rest of the schedule with it, as
            // dropped frames would: catching up instead would play the backlog of frames back to
            // back, a burst of scrolling no load could keep up with.
            due = due.advanced(by: configuration.frameDuration)
            if due.advanced(by: configuration.frameDuration) < clock.now { due = clock.now }
            try? await clock.sleep(until: due)
        }
        prefetcher.stopPrefetching()
        for task in cellTasks.values { _ = try? await task.response }
        report.duration = start.duration(to: clock.now)
        report.peakMemoryCacheBytes = max(report.peakMemoryCacheBytes, pipeline.memoryCacheUsage.cost)
        for (index, url) in urls.prefix(cellCount).enumerated() {
            let count = await originRequests(url)
            report.originRequests += count
            report.duplicateDownloads += max(0, count - 1)
            if !shown[index] { report.wastedDownloads += count }
        }
        return report
    }
}

extension Duration {
    /// The duration in seconds.
    fileprivate var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}

import Foundation
import LoupeCaching

/// Loads images a list will show soon — the rows just below the screen — at low priority and a
/// few at a time, so they are ready when they scroll into view (the prefetching list's prefetcher).
///
/// A prefetch is an ordinary pipeline request at ``priority``: when a cell asks for the same
/// image while its prefetch runs, the cell joins that load and raises its priority to the
/// cell's; stopping the prefetch then leaves the load to the cell, which gets its image. Images
/// already in the destination cache are skipped. Prefetches run at most
/// `maximumConcurrentRequests` at a time, newest first, in their own queue beside the
/// pipeline's, so they never take more of the network than that.
public final class ImagePrefetcher: Sendable {
    /// Where prefetched images should end up.
    public enum Destination: Sendable, Hashable {
        /// Decoded and processed, in the memory cache: ready to display.
        case memoryCache
        /// Data only, in the disk cache: no decoding now, none of the memory cache used.
        case diskCache
    }

    /// What the prefetcher has done since it was created.
    public struct Statistics: Sendable, Equatable {
        /// Prefetches started (requests not skipped).
        public var started = 0
        /// Prefetches that loaded their image.
        public var completed = 0
        /// Requests skipped because the destination already held their image.
        public var skipped = 0
        /// Prefetches stopped before they finished.
        public var cancelled = 0
        /// Prefetches that failed (the failure is the pipeline's to report; nobody waits here).
        public var failed = 0
    }

    /// The pipeline that loads.
    public let pipeline: ImagePipeline
    /// Where images go.
    public let destination: Destination
    /// The priority prefetches load at.
    public let priority: ImageRequest.Priority
    /// Bounds and orders the prefetches (internal, not private: the tests see what waits in it).
    let queue: WorkQueue
    private let state = Locked(State())

    private struct Prefetch {
        let id: UInt64
        var task: Task<Void, Never>?
    }

    private struct State {
        var nextID: UInt64 = 0
        /// The queue order the next call's requests start above (see `startPrefetching`).
        var nextOrder: UInt64 = 0
        var running: [ImagePipeline.ImageKey: Prefetch] = [:]
        var statistics = Statistics()
        /// Prefetch tasks started and not yet ended (stopped ones included until their task
        /// ends): what ``waitUntilIdle()`` waits for.
        var tasksInFlight = 0
        var idleWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID: UInt64 = 0

        /// The waiters to resume, when no task is left; emptied.
        mutating func takeIdleWaitersIfIdle() -> [CheckedContinuation<Void, Never>] {
            guard tasksInFlight == 0 else { return [] }
            defer { idleWaiters.removeAll() }
            return Array(idleWaiters.values)
        }
    }

    /// A prefetcher loading into `destination` through `pipeline`.
    ///
    /// - Parameters:
    ///   - pipeline: the pipeline whose loads (and caches) the prefetches share.
    ///   - destination: how far each prefetch goes: data into the disk cache, or the final image
    ///     into the memory cache.
    ///   - maximumConcurrentRequests: how many prefetches load at once.
    ///   - priority: the priority of every prefetch; a request that joins one raises it.
    public init(
        pipeline: ImagePipeline, destination: Destination = .memoryCache,
        maximumConcurrentRequests: Int = 2, priority: ImageRequest.Priority = .low
    ) {
        self.pipeline = pipeline
        self.destination = destination
        self.priority = priority
        queue = WorkQueue(maximumConcurrency: maximumConcurrentRequests)
    }

    deinit {
        stopPrefetching()
    }

    /// Starts prefetching `requests` (each at ``priority``), skipping those already cached or
    /// already prefetching.
    ///
    /// Waiting prefetches start newest call first — the cells a list has just scrolled near —
    /// and within a call in the order given: pass the nearest cell first.
    ///
    /// - Parameter requests: the images to prefetch, nearest cell first; each loads at ``priority``
    ///   whatever its own.
    public func startPrefetching(with requests: [ImageRequest]) {
        // Orders above every earlier call's, the first request's highest.
        let firstOrder = state.withLock { state in
            defer { state.nextOrder += UInt64(requests.count) }
            return state.nextOrder + UInt64(requests.count)
        }
        for (position, var request) in requests.enumerated() {
            let order = firstOrder - UInt64(position)
            request.priority = priority
            let key = self.key(for: request)
            if isCached(request) {
                state.withLock { $0.statistics.skipped += 1 }
                continue
            }
            // Registered before its task exists (so no second prefetch of the key starts), the
            // task created outside the lock, then attached — unless it was stopped, or already
            // finished, meanwhile: then the entry is gone and the task is cancelled (harmless
            // if it finished).
            let id: UInt64? = state.withLock { state in
                guard state.running[key] == nil else { return nil }
                defer { state.nextID += 1 }
                state.statistics.started += 1
                state.tasksInFlight += 1
                state.running[key] = Prefetch(id: state.nextID)
                return state.nextID
            }
            guard let id else { continue }
            let prefetchRequest = request
            // Immediate: it takes its place in the queue (or a free slot) before the next request
            // of the call is looked at, so slots and places follow the order given.
            let task = Task.immediateDetached(priority: priority.taskPriority) { [self] in
                await prefetch(prefetchRequest, key: key, id: id, order: order)
            }
            let attached = state.withLock { state -> Bool in
                guard state.running[key]?.id == id else { return false }
                state.running[key]?.task = task
                return true
            }
            if !attached { task.cancel() }
        }
    }

    /// Starts prefetching the images at `urls` at full size.
    ///
    /// - Parameter urls: the images to prefetch, nearest cell first, each at full size without
    ///   processors.
    public func startPrefetching(with urls: [URL]) {
        startPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Stops prefetching `requests`. A cell that joined one of them keeps loading it.
    ///
    /// - Parameter requests: the prefetches to stop, matched by image as they were started: source,
    ///   thumbnail size and processors (with ``Destination/diskCache``, the source alone), whatever their
    ///   priority. Requests not prefetching are ignored.
    public func stopPrefetching(with requests: [ImageRequest]) {
        let tasks = state.withLock { state in
            requests.compactMap { state.running.removeValue(forKey: key(for: $0))?.task }
        }
        for task in tasks { task.cancel() }
    }

    /// Stops prefetching the images at `urls`.
    ///
    /// - Parameter urls: the full-size images to stop prefetching. A prefetch of one of them started
    ///   with a thumbnail or processors is stopped this way only with ``Destination/diskCache``, which
    ///   matches by source.
    public func stopPrefetching(with urls: [URL]) {
        stopPrefetching(with: urls.map { ImageRequest(url: $0) })
    }

    /// Stops every prefetch.
    public func stopPrefetching() {
        let tasks = state.withLock { state in
            defer { state.running.removeAll() }
            return state.running.values.compactMap(\.task)
        }
        for task in tasks { task.cancel() }
    }

    /// While `true`, no new prefetch starts loading (those loading go on); set it while the
    /// user scrolls fast or the app needs the network, and back to resume.
    public var isPaused: Bool {
        get { queue.isPaused }
        set { queue.isPaused = newValue }
    }

    /// Returns once no prefetch is waiting or loading: every one started so far has completed,
    /// failed or been stopped (see ``statistics`` for which). Prefetches started while it waits
    /// are waited for too. Returns at once when the caller's task is cancelled.
    ///
    /// While ``isPaused`` holds prefetches back, it waits for them to be resumed or stopped.
    public func waitUntilIdle() async {
        let id = state.withLock { state in
            defer { state.nextWaiterID += 1 }
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    guard state.tasksInFlight > 0, !Task.isCancelled else { return true }
                    state.idleWaiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.idleWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// How many prefetches are waiting or loading now.
    public var pendingCount: Int { state.withLock { $0.running.count } }

    /// What the prefetcher has done so far.
    public var statistics: Statistics { state.withLock { $0.statistics } }

    // MARK: -

    nonisolated(nonsending)
    private func prefetch(_ request: ImageRequest, key: ImagePipeline.ImageKey, id: UInt64, order: UInt64) async {
        let outcome: WritableKeyPath<Statistics, Int>
        do {
            try await queue.run(priority: LoadPriority(priority.taskPriority), order: order) {
                // Another request may have loaded it while this one waited for a slot.
                guard !isCached(request) else { return }
                switch destination {
                case .memoryCache: _ = try await pipeline.image(for: request)
                case .diskCache: _ = try await pipeline.data(for: request)
                }
            }
            outcome = \.completed
        } catch is CancellationError {
            outcome = \.cancelled
        } catch {
            outcome = \.failed
        }
        let idleWaiters = state.withLock { state in
            state.statistics[keyPath: outcome] += 1
            if state.running[key]?.id == id { state.running[key] = nil }
            state.tasksInFlight -= 1
            return state.takeIdleWaitersIfIdle()
        }
        for waiter in idleWaiters { waiter.resume() }
    }

    private func key(for request: ImageRequest) -> ImagePipeline.ImageKey {
        switch destination {
        case .memoryCache: ImagePipeline.ImageKey(request)
        case .diskCache: ImagePipeline.ImageKey(dataKey: request.dataKey, thumbnail: nil, processorIdentifiers: [])
        }
    }

    private func isCached(_ request: ImageRequest) -> Bool {
        switch destination {
        case .memoryCache: pipeline.cachedImage(for: request) != nil
        case .diskCache: pipeline.hasFreshData(for: request)
        }
    }
}

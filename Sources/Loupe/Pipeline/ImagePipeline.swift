import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import Logging

/// Loads images: memory cache → disk cache → one coalesced network load per URL → decode →
/// process → memory cache, with priorities, cancellation and progress.
///
/// Every stage runs once per distinct piece of work however many requests want it: the data
/// once per URL (or custom cache key), the decode once per data and thumbnail size, each
/// processor once per input and processor prefix. A stage's work is cancelled only when the
/// last request that wants it is cancelled, and runs at the highest priority among them.
///
/// ```swift
/// let pipeline = ImagePipeline(configuration: .init(dataCache: try DiskCache(directory: cacheURL)))
/// let response = try await pipeline.image(for: ImageRequest(url: url, thumbnail: 256))
/// print(response.bitmap.width, response.origin)
/// ```
public final class ImagePipeline: Sendable {
    /// What the pipeline was built with.
    public let configuration: Configuration

    /// Processed images by what they are (not by cache policy); `nil` when disabled.
    let memoryCache: MemoryCache<ImageKey, StagedImage>?
    // The stages, in a request's order; each a type owning its loader, in a file of its own
    // (Sources/Loupe/Stages):
    //
    //   image(for:) ─► response(for:priority:previews:progress:)                this file
    //     │ memory hit? ── yes ──► ImageResponse(origin: .memory)
    //     ▼ no: responseFromStages(for:...)
    //   finalImageStage   the processed image from disk (.storeAll), else ▼;      FinalImageStage
    //     │               stores it in the memory cache
    //     ▼
    //   processStage      the last processor on the image without it, itself     ProcessStage
    //     │               ▲ this stage, so a shared processor prefix runs once;
    //     │               no processors: ▼
    //     ▼
    //   decodeStage       decode + downscale to the thumbnail                    DecodeStage
    //     ▼
    //   dataStage         a local file or data URL, else the disk cache (fresh,  DataStage
    //                     or revalidated) or the network, stored through
    //                     DiskCacheWriter (LoupeCaching)
    //
    //   data(for:) ─► dataStage's request loader (logs its failure once) ─► dataStage
    //
    // Each stage's loader is a `SingleFlightLoader` keyed by a `StageKey` (StageKeys.swift): its
    // work runs once per key however many requests want it, at the highest priority among them,
    // and is cancelled only with the last of them. A stage holds the stage below it and the
    // shared `StageContext`, never the pipeline.
    let finalImageStage: FinalImageStage
    let processStage: ProcessStage
    let decodeStage: DecodeStage
    let dataStage: DataStage
    /// Bounds HTTP loads and orders them by priority.
    let networkQueue: WorkQueue
    /// Bounds decoding and processing and orders them by priority.
    let processingQueue: WorkQueue
    let recorder = Recorder()
    let progressObservers = DataLoadObservers<DataLoadingProgress>()
    /// The tasks making progressive previews of each download.
    let previewers = DataLoadObservers<ProgressivePreviewer>()
    /// What the stages share, for the work beside them (previews).
    let stageContext: StageContext
    /// Writes to `configuration.dataCache` in the background; `nil` without a disk cache.
    let dataCacheWriter: DiskCacheWriter?
    let logger: Logger
    /// Whether debug messages are logged: checked once, because our copy of the logger never
    /// changes and the check is on the memory hit path.
    let logsDebug: Bool
    /// Trims the memory cache under the process's memory pressure; `nil` when off or where the
    /// system does not report it.
    let pressureMonitor: MemoryPressureMonitor?

    /// Creates a pipeline. Nothing is loaded until a request arrives.
    ///
    /// - Parameter configuration: the loaders, caches, decoder, limits and queues to build it with. The
    ///   default has no disk cache, loads HTTP(S) with AsyncHTTPClient (retrying transient failures) and
    ///   keeps processed images in memory.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        logger = configuration.logger
        logsDebug = configuration.logger.logLevel <= .debug
        dataCacheWriter = configuration.dataCache.map {
            DiskCacheWriter(cache: $0, stagingLimit: configuration.dataCacheStagingLimit, logger: configuration.logger)
        }
        memoryCache = configuration.isMemoryCacheEnabled
            ? MemoryCache(configuration: .init(
                costLimit: configuration.memoryCacheCostLimit,
                countLimit: configuration.memoryCacheCountLimit,
                timeToLive: configuration.memoryCacheTimeToLive,
                entryCostFraction: configuration.memoryCacheEntryCostFraction))
            : nil
        networkQueue = WorkQueue(
            maximumConcurrency: configuration.maximumConcurrentDataLoads,
            rateLimit: configuration.dataLoadRateLimit)
        processingQueue = WorkQueue(maximumConcurrency: configuration.maximumConcurrentProcessing)
        pressureMonitor = Self.pressureMonitor(configuration: configuration, memoryCache: memoryCache)

        // Bottom up: each stage holds the one below it.
        let context = StageContext(
            configuration: configuration, recorder: recorder, logger: logger, dataCacheWriter: dataCacheWriter,
            processingQueue: processingQueue)
        stageContext = context
        dataStage = DataStage(context: context, networkQueue: networkQueue, progressObservers: progressObservers, previewers: previewers)
        decodeStage = DecodeStage(context: context, dataStage: dataStage)
        processStage = ProcessStage(context: context, decodeStage: decodeStage)
        finalImageStage = FinalImageStage(
            context: context, memoryCache: memoryCache, processStage: processStage, decodeStage: decodeStage)
    }

    // MARK: - Loading

    /// Loads the image `request` asks for.
    ///
    /// - Parameter request: the image to load: its source, thumbnail size, processors, priority and how
    ///   it uses the caches.
    /// - Returns: the image, where it came from (``ImageResponse/origin``), how long its stages took and,
    ///   when this load decoded it, the encoded source (``ImageResponse/data``).
    /// - Throws: ``ImagePipelineError`` when it cannot be produced; `CancellationError` when the
    ///   calling task is cancelled (work shared with other requests goes on for them).
    nonisolated(nonsending)
    public func image(for request: ImageRequest) async throws -> ImageResponse {
        try await response(for: request, priority: nil, progress: nil)
    }

    /// Loads the image `request` asks for at `priority`, which may carry an arrival: the service
    /// orders its requests first come, first served through every stage this way.
    nonisolated(nonsending)
    package func image(for request: ImageRequest, priority: LoadPriority) async throws -> ImageResponse {
        try await response(for: request, priority: priority, progress: nil)
    }

    /// Loads the image at `url` at full size.
    ///
    /// - Parameter url: an `http`, `https`, `file` or `data` URL (`s3` with a ``Configuration/s3DataLoader``),
    ///   loaded with `GET` at normal priority, without processors, through the caches.
    /// - Returns: the image, where it came from and how long its stages took.
    /// - Throws: ``ImagePipelineError`` when it cannot be produced; `CancellationError` when the
    ///   calling task is cancelled (work shared with other requests goes on for them).
    nonisolated(nonsending)
    public func image(for url: URL) async throws -> ImageResponse {
        try await image(for: ImageRequest(url: url))
    }

    /// Loads the data behind `request` — from the disk cache, the network, a local file or the
    /// request's bytes or provider — without decoding it, sharing the load with image requests
    /// for the same data. The memory cache, thumbnail and processors play no part.
    ///
    /// - Parameter request: the source whose bytes are wanted, with its cache key, priority, cache policy
    ///   and cache options; its thumbnail and processors play no part.
    /// - Returns: the bytes and where they came from.
    /// - Throws: ``ImagePipelineError`` when the data cannot be loaded (``ImagePipelineError/notCached``
    ///   when the cache policy forbids loading and the disk cache has none); `CancellationError` when the
    ///   calling task is cancelled (a load shared with other requests goes on for them).
    nonisolated(nonsending)
    public func data(for request: ImageRequest) async throws -> (data: Data, origin: ImageOrigin) {
        let key = StageKey(request).data
        do {
            let fetched = try await dataStage.dataForDataRequest(key, priority: LoadPriority(request.priority.taskPriority))
            return (fetched.data, fetched.origin)
        } catch let error as ImagePipelineError {
            recorder.recordFailure(error)
            throw error
        }
    }

    /// Starts loading `request` and returns a handle to follow its progress, change its
    /// priority, cancel it or await its response.
    ///
    /// Called from a nonisolated context, the task has joined the load in flight for the same
    /// image (a prefetch's, say) by the time this returns, so stopping that prefetch next leaves
    /// the load to this task. From an actor, the task starts soon after, as any task does.
    ///
    /// - Parameter request: the image to load; its priority is where the task's ``ImageTask/priority``
    ///   starts, and its ``ImageRequest/previews`` (else the configuration's) decide whether the task
    ///   sends progressive previews.
    /// - Returns: the running task, to follow through its ``ImageTask/events``, reprioritize, cancel or
    ///   await (``ImageTask/response``); the load goes on whether or not anyone awaits it.
    public func imageTask(with request: ImageRequest) -> ImageTask {
        let priority = LoadPriority(request.priority.taskPriority)
        let events = ImageTaskEvents()
        // Detached: the task belongs to the handle, not to the caller's actor or task-locals.
        // Immediate: it runs on the caller's thread until it waits for the shared work, so it has
        // joined that work when this returns — a list that stops the cell's prefetch on the next
        // line leaves the load to the cell instead of cancelling it (the prefetching list).
        let sendPreview: PreviewSink = { events.preview($0) }
        let previews = (request.previews ?? configuration.previews).allows(thumbnail: request.thumbnail) ? sendPreview : nil
        let task = Task.immediateDetached(priority: request.priority.taskPriority) { [self] in
            let result: Result<ImageResponse, any Error>
            do {
                result = .success(try await response(for: request, priority: priority, previews: previews) { received, expected in
                    events.progress(ImageTask.Progress(completed: received, total: expected))
                })
            } catch {
                result = .failure(error)
            }
            events.finish(result)
            if case .success(let response) = result, let revalidation = response.revalidation {
                // The response was answered; its update follows on its own.
                Task.detached(priority: request.priority.taskPriority) { [self] in
                    await sendUpdate(for: request, after: revalidation, to: events)
                    events.end()
                }
            } else {
                events.end()
            }
            return try result.get()
        }
        return ImageTask(request: request, priority: priority, task: task, events: events)
    }

    /// Once the stale copy a task answered is revalidated: the image from the server's new bytes,
    /// if it sent any, as the task's ``ImageTask/Event/updated(_:)``. Loaded from the disk cache
    /// the revalidation just wrote (never the network again), after forgetting the request's
    /// image made from the old bytes in memory and, stored processed, on disk.
    private func sendUpdate(for request: ImageRequest, after revalidation: BackgroundRevalidations.Revalidation, to events: ImageTaskEvents) async {
        guard await revalidation.outcome == .newData else { return }
        _ = memoryCache?.removeValue(forKey: ImageKey(request))
        dataCacheWriter?.remove(forKey: ImageKey(request).diskKey)
        var fromDisk = request
        fromDisk.cachePolicy = .returnCacheDataDontLoad
        do {
            let updated = try await response(for: fromDisk, priority: nil, progress: nil)
            events.update(ImageResponse(
                container: updated.container, request: request, origin: updated.origin, isRevalidated: updated.isRevalidated,
                timings: updated.timings, data: updated.data, staleness: updated.staleness))
        } catch {
            // The new bytes were not kept (the server forbade it, or the staging area was full):
            // the next request loads them.
            logger.debug("no update: the revalidated data is not cached", metadata: ["key": "\(ImageKey(request))", "error": "\(error)"])
        }
    }

    /// The image for `request` if the memory cache holds it; never loads.
    ///
    /// - Parameter request: what identifies the image: its source, thumbnail size and processors. Its
    ///   cache policy and cache options are not consulted.
    /// - Returns: the image, or `nil` when the memory cache does not hold it (or is disabled).
    public func cachedImage(for request: ImageRequest) -> ImageContainer? {
        cache.image(for: request)
    }

    /// The caches in code: look up, store and remove images and data, trim the memory cache.
    public var cache: ImagePipelineCache {
        ImagePipelineCache(memoryCache: memoryCache, dataCacheWriter: dataCacheWriter, configuration: configuration)
    }

    /// Whether the disk cache holds fresh data for `request` (local files and bytes the request
    /// carries count as held; a provider's do not, as it has to make them).
    func hasFreshData(for request: ImageRequest) -> Bool {
        switch request.source {
        case .data: return true
        case .provider: return false
        case .url(let urlRequest):
            switch urlRequest.url.scheme?.lowercased() {
            case "file", "data": return true
            default: return dataCacheWriter?.containsFreshEntry(forKey: request.dataKey) ?? false
            }
        }
    }

    /// Removes the image for `request` from the memory cache (and, with `includingDisk`, its
    /// data from the disk cache).
    ///
    /// - Parameters:
    ///   - request: the image to forget: its source, thumbnail size and processors.
    ///   - includingDisk: whether to forget the source's data in the disk cache too (data every thumbnail
    ///     and processing of that source shares) and this request's processed image stored there;
    ///     `false` (the default) leaves the disk cache alone.
    public func removeCachedImage(for request: ImageRequest, includingDisk: Bool = false) {
        cache.removeImage(for: request)
        if includingDisk { cache.removeData(for: request) }
    }

    /// Returns once everything handed to the disk cache so far is written. Writes happen in the
    /// background so loads never wait for them; ``shutdown()`` does this too.
    public func flushDataCache() async {
        await dataCacheWriter?.flush()
    }

    /// Writes what waits for the disk cache, closes the disk cache (releasing its folder for
    /// another pipeline or process) and empties the memory cache. Call it when the pipeline's
    /// work is done — before exiting, or before opening a pipeline on the same cache folder.
    ///
    /// Requests made afterwards still load, from the network or local files, without the disk
    /// cache. Calling it again does nothing more.
    public func shutdown() async {
        pressureMonitor?.stop()
        await dataCacheWriter?.close()
        memoryCache?.removeAll()
    }

    /// Empties the memory cache.
    public func removeAllCachedImages() {
        memoryCache?.removeAll()
    }

    /// The memory cache's size now: how many images it holds and their cost in bytes of pixels
    /// (at most ``Configuration/memoryCacheCostLimit``); zeros when it is disabled.
    public var memoryCacheUsage: (count: Int, cost: Int) { cache.memoryUsage }

    /// What the pipeline has done so far.
    public var statistics: Statistics { recorder.snapshot }

    /// Downloads waiting for a slot now (the service's metrics show where its line stands).
    package var waitingDataLoads: Int { networkQueue.waitingCount }

    /// Decodes and processor runs waiting for a worker now.
    package var waitingProcessing: Int { processingQueue.waitingCount }

    /// The memory hit, else the shared work; counts and logs the outcome.
    ///
    /// Runs on the caller's executor (`nonsending`): a memory hit from the main actor returns
    /// without hopping to the global executor and back. The work itself runs in the stages' own
    /// tasks.
    ///
    /// - Parameter priority: the request's live priority; `nil` for its fixed one, created only
    ///   on a miss (a memory hit allocates nothing for it).
    /// - Parameter previews: where a task's progressive previews go; `nil` for none.
    nonisolated(nonsending)
    func response(
        for request: ImageRequest, priority: LoadPriority?, previews: PreviewSink? = nil, progress: DataLoadingProgress?
    ) async throws -> ImageResponse {
        if let hit = memoryHit(for: request) { return hit }
        return try await responseFromStages(for: request, priority: priority, previews: previews, progress: progress, start: .now)
    }

    /// Where a task's previews go.
    typealias PreviewSink = @Sendable (ImageTask.Preview) -> Void

    /// The response from the memory cache, if the request allows it and the cache holds it;
    /// synchronous, so a hit costs no asynchronous frame beyond the caller's.
    ///
    /// A hit is not timed (its `timings.total` is zero): it takes about 200 ns, and the two clock
    /// reads that timing it needs cost about 40 ns of that (profiled with perf: `clock_gettime`
    /// were a sixth of the hit). On a miss the clock starts after the lookup, whose fraction of a
    /// microsecond the total then leaves out.
    func memoryHit(for request: ImageRequest) -> ImageResponse? {
        guard request.cachePolicy.readsMemory(request.cacheUse), let memoryCache,
              let hit = memoryCache.value(forKey: ImageKey(request))
        else {
            recorder.record(.memoryMisses)
            return nil
        }
        recorder.record(.memoryHits)
        if logsDebug { logger.debug("loaded", metadata: ["key": "\(ImageKey(request))", "origin": "memory"]) }
        return ImageResponse(
            container: hit.container, request: request, origin: .memory, isRevalidated: false,
            timings: ImageTimings())
    }

    /// The miss path of ``response(for:priority:previews:progress:)``: the final image stage's value, timed,
    /// counted and logged for this request.
    nonisolated(nonsending)
    private func responseFromStages(
        for request: ImageRequest, priority: LoadPriority?, previews: PreviewSink?, progress: DataLoadingProgress?,
        start: ContinuousClock.Instant
    ) async throws -> ImageResponse {
        let key = StageKey(request)
        let priority = priority ?? LoadPriority(request.priority.taskPriority)
        let observation = progress.map { progressObservers.add($0, for: key.data) }
        defer { observation.map(progressObservers.remove) }
        let previewer = previews.map { deliver in
            ProgressivePreviewer(request: request, interval: (request.previews ?? configuration.previews).minimumInterval ?? .zero,
                                 context: stageContext, priority: priority, deliver: deliver)
        }
        let previewing = previewer.map { previewers.add($0, for: key.data) }
        defer {
            previewing.map(previewers.remove)
            previewer?.stop()
        }
        logger.debug("loading", metadata: ["key": "\(key)", "cachePolicy": "\(request.cachePolicy)"])
        do {
            let staged = try await finalImageStage.image(for: key, priority: priority)
            var timings = staged.timings
            timings.total = start.duration(to: .now)
            logger.debug("loaded", metadata: [
                "key": "\(key)", "origin": "\(staged.origin)", "revalidated": "\(staged.isRevalidated)",
                "duration": "\(timings.total)",
            ])
            return ImageResponse(
                container: staged.container, request: request, origin: staged.origin,
                isRevalidated: staged.isRevalidated, timings: timings, data: staged.data,
                staleness: staged.stale?.staleness, revalidation: staged.stale?.revalidation)
        } catch let error as ImagePipelineError {
            // Logged once by the final image stage; counted here, once per request.
            recorder.recordFailure(error)
            throw error
        } catch {
            recorder.record(.cancellations)
            logger.debug("cancelled", metadata: ["key": "\(key)"])
            throw error
        }
    }
}

extension ImageRequest.CachePolicy {
    /// Whether a request with this policy and `use` may be answered from the memory cache.
    func readsMemory(_ use: ImageRequest.CacheUse) -> Bool {
        switch self {
        case .useCache, .returnCacheDataDontLoad: !use.options.contains(.skipMemoryCacheRead)
        case .reloadIgnoringCaches, .revalidate: false
        }
    }
}

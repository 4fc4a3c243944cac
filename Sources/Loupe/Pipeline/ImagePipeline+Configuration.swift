import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import Logging

extension ImagePipeline {
    /// Everything a pipeline is built from: its loaders, caches, decoder, limits and queues.
    /// Defaults follow what users of Nuke expect, adapted to servers and command-line tools.
    public struct Configuration: Sendable {
        /// Loads `http` and `https` URLs. Default: AsyncHTTPClient with retries of transient
        /// failures (BENCHMARKS.md has the measurements that chose AsyncHTTPClient).
        public var dataLoader: any DataLoading
        /// Changes each network load's request before it is sent (a fresh bearer token, say),
        /// and is asked again once after a `401 Unauthorized`; `nil` sends requests as built.
        public var requestModifier: RequestModifier?
        /// Loads `file` and `data` URLs.
        public var localDataLoader: any DataLoading = LocalDataLoader()
        /// Loads `s3://bucket/key` URLs (a `RetryingDataLoader` around an `S3DataLoader`), with
        /// the same disk cache, revalidation, network queue and request modifier as HTTP; `nil`
        /// (the default) refuses them as an unsupported scheme.
        public var s3DataLoader: (any DataLoading)?
        /// Turns data into pixels.
        public var decoder: any ImageDecoding = ImageDecoder()
        /// Pixel and frame limits checked before any image is allocated.
        public var decodingLimits = DecodingLimits()

        /// Holds downloaded data across runs; `nil` for none.
        public var dataCache: DiskCache?
        /// What goes into ``dataCache``.
        public var dataCachePolicy: DataCachePolicy = .storeOriginalData
        /// At most this many bytes wait in memory to be written to ``dataCache`` (writes happen
        /// in the background); data arriving beyond that is not cached.
        public var dataCacheStagingLimit = 64 << 20
        /// How long a response without `Cache-Control` or `Expires` stays fresh on disk.
        public var defaultTimeToLive: TimeInterval? = 7 * 24 * 60 * 60

        /// Whether a stale disk copy is answered at once while it is revalidated in the
        /// background, for requests that do not say (``ImageRequest/staleWhileRevalidate``).
        /// Default: as far as the server's `stale-while-revalidate` allows, as browsers do.
        public var staleWhileRevalidate: ImageRequest.StalePolicy = .whenServerAllows
        /// Whether a stale disk copy is answered when its revalidation fails over the network,
        /// for requests that do not say (``ImageRequest/staleIfError``). Default: as far as the
        /// server's `stale-if-error` allows.
        public var staleIfError: ImageRequest.StalePolicy = .whenServerAllows

        /// Whether tasks show progressive JPEGs before their last byte, and how often, for
        /// requests that do not say (``ImageRequest/previews``): after the first complete scan,
        /// then at most every 250 ms, for the full size and thumbnails from 300 pixels.
        public var previews: ImageRequest.PreviewPolicy = .standard

        /// Whether processed images are kept in memory.
        public var isMemoryCacheEnabled = true
        /// The memory cache's limit in bytes of pixels. Default: a fifth of the machine's memory,
        /// at most 512 MiB.
        public var memoryCacheCostLimit = Int(min(ProcessInfo.processInfo.physicalMemory / 5, 512 << 20))
        /// The largest share of ``memoryCacheCostLimit`` one image may take (0...1): an image
        /// costing more (its width × height × 4 bytes, after thumbnailing and processing) is
        /// returned but not kept in memory, because storing it would evict most of the cache for
        /// one image. The next request for it is served from the disk cache or the network.
        ///
        /// Default 0.25: with a 10 MB limit an ordinary full-size photo of up to 625,000 pixels
        /// (2.5 MB; 900×506 is 1.8 MB) is kept, and the cache still holds at least four images at
        /// its fullest. Nuke's 0.1 is tuned for its default limit of a fifth of the device's
        /// memory, where it never bites; at the few megabytes a list or a command-line run is
        /// given, 0.1 silently turned every full-size image into a network load.
        public var memoryCacheEntryCostFraction = 0.25
        /// The memory cache's limit in images.
        public var memoryCacheCountLimit = 10_000
        /// How long an image stays in memory; `nil` for no age limit.
        public var memoryCacheTimeToLive: Duration?

        /// At most this many HTTP loads run at once (more wait, highest priority and newest first).
        /// It bounds every way in: an ``ImagePipeline/imageBatch(for:maximumConcurrency:)`` of 8
        /// still downloads at most this many at once (decodes of cached data are not bounded by it).
        public var maximumConcurrentDataLoads = 6
        /// At most this many HTTP loads start per second; `nil` for no limit.
        public var dataLoadRateLimit: RateLimit?
        /// At most this many decodes and processor runs at once, on threads outside Swift's
        /// cooperative pool. Default: the number of cores.
        public var maximumConcurrentProcessing = ProcessInfo.processInfo.activeProcessorCount
        /// Memory shared by downloaded data waiting to be decoded and by decodes' pixels; `nil`
        /// (the default) for no bound. A download waits (in arrival order) while the budget is
        /// spent, so a burst of requests for large sources cannot hold more sources in memory
        /// than it allows; decodes, already on their workers, take theirs at once. One budget
        /// may be shared by several pipelines.
        ///
        /// ```swift
        /// configuration.memoryBudget = MemoryBudget(limit: 256 << 20)
        /// ```
        public var memoryBudget: MemoryBudget?
        /// How the memory cache gives memory back when the process's memory is short (Linux
        /// cgroup v2: its group's `memory.events` or `memory.pressure`); `nil` never trims by
        /// itself (``ImagePipelineCache/trim(to:)`` still does). Off where the system does not
        /// report pressure.
        public var memoryPressureTrimming: MemoryPressureTrimming? = MemoryPressureTrimming()

        /// Where requests' keys, stages and outcomes are logged (debug), and failures (at
        /// ``failureLogLevel``). Set `logger.logLevel` to choose what is logged at all.
        public var logger = Logger(label: "loupe.pipeline")
        /// The level a failed load is logged at: once per failed piece of shared work, however
        /// many requests were waiting for it (ten views wanting one missing image log one line).
        /// `.warning` by default; `.debug` for an app where a missing image is ordinary.
        public var failureLogLevel: Logger.Level = .warning
        /// The wall clock used for HTTP freshness (tests move it).
        public var now: @Sendable () -> Date = { Date() }

        /// A configuration loading HTTP(S) with `dataLoader` and caching data in `dataCache`.
        ///
        /// - Parameters:
        ///   - dataCache: the disk cache for downloaded data (and, with
        ///     ``ImagePipeline/DataCachePolicy/storeAll``, processed images); `nil` (the default) for none.
        ///   - dataLoader: loads `http` and `https` URLs; the default is AsyncHTTPClient, retrying
        ///     transient failures.
        public init(
            dataCache: DiskCache? = nil,
            dataLoader: any DataLoading = RetryingDataLoader(AsyncHTTPClientDataLoader())
        ) {
            self.dataCache = dataCache
            self.dataLoader = dataLoader
        }
    }

    /// How the memory cache is trimmed under the process's memory pressure.
    public struct MemoryPressureTrimming: Sendable {
        /// Between two reads of the pressure files (at least `MemoryPressureMonitor.minimumInterval`).
        public var pollInterval: Duration
        /// The share of ``Configuration/memoryCacheCostLimit`` (0...1) the memory cache is
        /// trimmed to when pressure rises.
        public var retainedFraction: Double
        /// The PSI `some avg10` percentage (0...100) counted as pressure, beside the group's
        /// `high`, `max` and `oom` events, which always are.
        public var stallThreshold: Double
        /// The cgroup folder read; `nil` for the process's own.
        public var cgroupDirectory: URL?

        /// Trimming to `retainedFraction` of the cost limit (half by default) when, polled every
        /// `pollInterval` (a second by default), the group hit its memory limits or its tasks
        /// stalled on memory for `stallThreshold` percent of the last ten seconds (10 by default).
        ///
        /// - Parameters:
        ///   - pollInterval: the time between two reads of the cgroup's pressure files (at least
        ///     `MemoryPressureMonitor.minimumInterval`, 10 ms).
        ///   - retainedFraction: the share of ``Configuration/memoryCacheCostLimit`` the memory cache is
        ///     trimmed to when pressure rises, clamped to 0...1.
        ///   - stallThreshold: the PSI `some avg10` percentage (0...100) from which tasks stalling on
        ///     memory count as pressure.
        ///   - cgroupDirectory: the cgroup folder to read; `nil` (the default) for the process's own.
        public init(pollInterval: Duration = .seconds(1), retainedFraction: Double = 0.5, stallThreshold: Double = 10,
                    cgroupDirectory: URL? = nil) {
            self.pollInterval = pollInterval
            self.retainedFraction = min(1, max(0, retainedFraction))
            self.stallThreshold = stallThreshold
            self.cgroupDirectory = cgroupDirectory
        }
    }

    /// The monitor that trims `memoryCache` as `configuration` says, or `nil`.
    static func pressureMonitor(configuration: Configuration, memoryCache: MemoryCache<ImageKey, StagedImage>?) -> MemoryPressureMonitor? {
        guard let trimming = configuration.memoryPressureTrimming, let memoryCache else { return nil }
        let retained = Int(Double(configuration.memoryCacheCostLimit) * trimming.retainedFraction)
        return MemoryPressureMonitor(directory: trimming.cgroupDirectory, interval: trimming.pollInterval,
                                     stallThreshold: trimming.stallThreshold) { [logger = configuration.logger] in
            logger.debug("memory pressure: trimming the memory cache", metadata: ["to": "\(retained)"])
            memoryCache.trim(toCost: retained)
        }
    }

    /// What the pipeline stores in its disk cache.
    public enum DataCachePolicy: Sendable, Hashable {
        /// The original data as downloaded (the default): any thumbnail or processing of it is
        /// computed again from it, and one entry serves all of them.
        case storeOriginalData
        /// The original data and, for requests with a thumbnail or processors, the final image
        /// encoded (PNG when it has transparency, else JPEG at quality 90), so a later run skips
        /// decoding the original and processing.
        case storeAll
    }
}

import LoupeCaching
import Metrics
import Synchronization

extension ImagePipeline {
    /// Counts of what the pipeline did since it was created: a snapshot, read with
    /// ``ImagePipeline/statistics``. The same counts go to swift-metrics as counters named
    /// `loupe_<name>_total` (errors as `loupe_errors_total` with a `kind` dimension; requests as
    /// `loupe_memory_hits_total` plus `loupe_memory_misses_total`), so a process
    /// that bootstraps a metrics backend exports them.
    public struct Statistics: Sendable, Equatable {
        /// Image requests made (``ImagePipeline/image(for:)-(ImageRequest)`` calls and tasks).
        public var requests = 0
        /// Requests answered from the memory cache.
        public var memoryHits = 0
        /// Requests that started the work for their image (the others hit memory or joined).
        public var loadsStarted = 0
        /// Data loads started (one per distinct data key in flight).
        public var dataLoads = 0
        /// Data loads served by the disk cache without asking the server.
        public var diskHits = 0
        /// HTTP requests sent (conditional ones included).
        public var networkRequests = 0
        /// Responses with a body that was downloaded.
        public var downloads = 0
        /// Bytes of the bodies downloaded.
        public var bytesDownloaded = 0
        /// Conditional requests sent to revalidate a disk entry.
        public var revalidations = 0
        /// Revalidations the server answered with `304 Not Modified`.
        public var notModified = 0
        /// HTTP loads tried again after a transient failure (by a `RetryingDataLoader`).
        public var retries = 0
        /// Data read from `file` and `data` URLs.
        public var localLoads = 0
        /// Images decoded.
        public var decodes = 0
        /// Processors run.
        public var processorRuns = 0
        /// Progressive previews decoded (``ImageTask/Event/preview(_:)``), apart from ``decodes``.
        public var previewDecodes = 0
        /// Requests that ended in an error, by the raw value of their ``ImagePipelineError/reason``.
        public var failures: [String: Int] = [:]
        /// Requests whose caller cancelled them.
        public var cancellations = 0

        /// Requests that joined work already in flight for the same image instead of starting
        /// their own: requests that neither hit memory nor started a load.
        public var coalescedRequests: Int { requests - memoryHits - loadsStarted }
    }

    /// What the pipeline counts; each is a field of ``Statistics`` and a swift-metrics counter.
    enum Event: Int, CaseIterable {
        case memoryMisses, memoryHits, loadsStarted, dataLoads, diskHits, networkRequests, downloads
        case bytesDownloaded, revalidations, notModified, retries, localLoads, decodes, processorRuns, cancellations, previewDecodes
    }

    /// Keeps ``Statistics`` and forwards every count to swift-metrics. Counting is on the memory
    /// hit path, so each count is an atomic add (no lock, no hashing) plus the metrics call.
    final class Recorder: @unchecked Sendable {
        // Why `@unchecked Sendable` is safe: `counts` points to atomics that are initialized in
        // `init` before the recorder is shared, only ever accessed through atomic operations,
        // and deinitialized in `deinit` when no one else holds the recorder. `counters` and
        // `failures` are immutable references to thread-safe objects. (A buffer rather than an
        // array of boxes: reading a box out of an array retains it, on every memory hit.)
        private let counts: UnsafeMutablePointer<Atomic<Int>>
        private let counters: [Counter]
        private let failures = Locked<[String: Int]>([:])

        init() {
            counts = .allocate(capacity: Event.allCases.count)
            for index in Event.allCases.indices { (counts + index).initialize(to: Atomic(0)) }
            counters = Event.allCases.map { Counter(label: "loupe_\(Recorder.snakeCase(String(describing: $0)))_total") }
        }

        deinit {
            counts.deinitialize(count: Event.allCases.count)
            counts.deallocate()
        }

        var snapshot: Statistics {
            func count(_ event: Event) -> Int { counts[event.rawValue].load(ordering: .relaxed) }
            var statistics = Statistics()
            // Counted as hits and misses, so a hit makes one count, not two.
            statistics.memoryHits = count(.memoryHits)
            statistics.requests = statistics.memoryHits + count(.memoryMisses)
            statistics.loadsStarted = count(.loadsStarted)
            statistics.dataLoads = count(.dataLoads)
            statistics.diskHits = count(.diskHits)
            statistics.networkRequests = count(.networkRequests)
            statistics.downloads = count(.downloads)
            statistics.bytesDownloaded = count(.bytesDownloaded)
            statistics.revalidations = count(.revalidations)
            statistics.notModified = count(.notModified)
            statistics.retries = count(.retries)
            statistics.localLoads = count(.localLoads)
            statistics.decodes = count(.decodes)
            statistics.processorRuns = count(.processorRuns)
            statistics.previewDecodes = count(.previewDecodes)
            statistics.cancellations = count(.cancellations)
            statistics.failures = failures.withLock { $0 }
            return statistics
        }

        func record(_ event: Event, _ count: Int = 1) {
            counts[event.rawValue].add(count, ordering: .relaxed)
            counters[event.rawValue].increment(by: Int64(count))
        }

        func recordFailure(_ error: ImagePipelineError) {
            let kind = error.reason.rawValue
            failures.withLock { $0[kind, default: 0] += 1 }
            Counter(label: "loupe_errors_total", dimensions: [("kind", kind)]).increment()
        }

        private static func snakeCase(_ name: String) -> String {
            name.reduce(into: "") { result, character in
                if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
            }
        }
    }
}

import LoupeCaching
import Metrics

extension ImagePipeline {
    /// Counts of what the pipeline did since it was created: a snapshot, read with
    /// ``ImagePipeline/statistics``. The same counts go to swift-metrics as counters named
    /// `loupe_<name>_total` (errors as `loupe_errors_total` with a `kind` dimension), so a process
    /// that bootstraps a metrics backend exports them.
    public struct Statistics: Sendable, Equatable {
        /// Image requests made (``ImagePipeline/image(for:)`` calls and tasks).
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
        /// Data read from `file` and `data` URLs.
        public var localLoads = 0
        /// Images decoded.
        public var decodes = 0
        /// Processors run.
        public var processorRuns = 0
        /// Requests that ended in an error, by ``ImagePipelineError/kind``.
        public var failures: [String: Int] = [:]
        /// Requests whose caller cancelled them.
        public var cancellations = 0

        /// Requests that joined work already in flight for the same image instead of starting
        /// their own: requests that neither hit memory nor started a load.
        public var coalescedRequests: Int { requests - memoryHits - loadsStarted }
    }

    /// What the pipeline counts; each is a field of ``Statistics`` and a swift-metrics counter.
    enum Event: String, CaseIterable {
        case requests, memoryHits, loadsStarted, dataLoads, diskHits, networkRequests, downloads
        case bytesDownloaded, revalidations, notModified, localLoads, decodes, processorRuns, cancellations
    }

    /// Keeps ``Statistics`` and forwards every count to swift-metrics.
    final class Recorder: Sendable {
        private let statistics = Locked(Statistics())
        private let counters: [Event: Counter]

        init() {
            counters = Dictionary(uniqueKeysWithValues: Event.allCases.map { event in
                (event, Counter(label: "loupe_\(Recorder.snakeCase(event.rawValue))_total"))
            })
        }

        var snapshot: Statistics { statistics.withLock { $0 } }

        func record(_ event: Event, _ count: Int = 1) {
            statistics.withLock { statistics in
                switch event {
                case .requests: statistics.requests += count
                case .memoryHits: statistics.memoryHits += count
                case .loadsStarted: statistics.loadsStarted += count
                case .dataLoads: statistics.dataLoads += count
                case .diskHits: statistics.diskHits += count
                case .networkRequests: statistics.networkRequests += count
                case .downloads: statistics.downloads += count
                case .bytesDownloaded: statistics.bytesDownloaded += count
                case .revalidations: statistics.revalidations += count
                case .notModified: statistics.notModified += count
                case .localLoads: statistics.localLoads += count
                case .decodes: statistics.decodes += count
                case .processorRuns: statistics.processorRuns += count
                case .cancellations: statistics.cancellations += count
                }
            }
            counters[event]?.increment(by: Int64(count))
        }

        func recordFailure(_ error: ImagePipelineError) {
            let kind = error.kind
            statistics.withLock { $0.failures[kind, default: 0] += 1 }
            Counter(label: "loupe_errors_total", dimensions: [("kind", kind)]).increment()
        }

        private static func snakeCase(_ name: String) -> String {
            name.reduce(into: "") { result, character in
                if character.isUppercase { result += "_" + character.lowercased() } else { result.append(character) }
            }
        }
    }
}

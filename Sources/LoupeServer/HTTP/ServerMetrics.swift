import Loupe
import LoupeCaching
import Prometheus

/// The service's Prometheus metrics (swift-prometheus, its own registry): requests by status,
/// durations per stage, queue depth, requests in flight, and the pipeline's coalescing and
/// cache counts, read from its statistics at each scrape.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    let resultCacheHits: Counter
    /// Result storage lookups and writes by outcome (``ResultStorage/Outcome``), made once each.
    private let resultStorage: [ResultStorage.Outcome: Counter]
    let inFlight: Gauge
    private let queueDepth: Gauge
    private let secondsPerRequest: Gauge
    /// 429s by reason (``AdmissionGate/Refusal``), made once each.
    private let refusals: [AdmissionGate.Refusal: Counter]
    private let budgetInUse: Gauge
    private let budgetLimit: Gauge
    private let budgetWaiting: Gauge
    /// Work waiting for a slot, by stage (`download`, `processing`, `encode`).
    private let waiting: [String: Gauge]
    /// The stage histograms, made once: the registry's lookup by name and labels costs more
    /// than the recording itself, several times per request.
    private let stages: [String: DurationHistogram]
    /// The request counters by status, made on a status's first use for the same reason.
    private let requestCounters = Locked<[Int: Counter]>([:])
    private let stageBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100),
        .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10), .seconds(30),
    ]

    init() {
        resultCacheHits = registry.makeCounter(descriptor: Self.name("result_cache_hits", "total", "Results served from the result cache"))
        inFlight = registry.makeGauge(descriptor: Self.name("requests_in_flight", "", "Requests being answered"))
        queueDepth = registry.makeGauge(descriptor: Self.name("queue_depth", "", "Image requests admitted, waiting or working"))
        secondsPerRequest = registry.makeGauge(descriptor: Self.name(
            "admission_estimate", "seconds", "Time the line spends per image request, as admission estimates it (0 before any finished)"))
        var refusals: [AdmissionGate.Refusal: Counter] = [:]
        for reason in AdmissionGate.Refusal.allCases {
            refusals[reason] = registry.makeCounter(descriptor: Self.name("refused_requests", "total", "Requests refused with 429, by reason"),
                                                    labels: [("reason", reason.rawValue)])
        }
        self.refusals = refusals
        var resultStorage: [ResultStorage.Outcome: Counter] = [:]
        for outcome in ResultStorage.Outcome.allCases {
            resultStorage[outcome] = registry.makeCounter(
                descriptor: Self.name("result_storage", "total", "Result storage (--result-storage) lookups and writes, by outcome"),
                labels: [("outcome", outcome.rawValue)])
        }
        self.resultStorage = resultStorage
        budgetInUse = registry.makeGauge(descriptor: Self.name(
            "memory_budget_in_use", "bytes", "Memory budget held by downloaded sources waiting to be decoded and by decodes"))
        budgetLimit = registry.makeGauge(descriptor: Self.name("memory_budget_limit", "bytes", "The memory budget (--memory-budget)"))
        budgetWaiting = registry.makeGauge(descriptor: Self.name("memory_budget_waiting", "", "Downloads waiting for the memory budget"))
        var waiting: [String: Gauge] = [:]
        for stage in ["download", "processing", "encode"] {
            waiting[stage] = registry.makeGauge(descriptor: Self.name("waiting_work", "", "Work waiting for a slot, by stage"),
                                                labels: [("stage", stage)])
        }
        self.waiting = waiting
        var stages: [String: DurationHistogram] = [:]
        for stage in ["queue", "download", "decode", "process", "encode", "pipeline", "total"] {
            stages[stage] = registry.makeDurationHistogram(descriptor: Self.stageDuration, labels: [("stage", stage)], buckets: stageBuckets)
        }
        self.stages = stages
    }

    private static var requests: MetricNameDescriptor { name("http_requests", "total", "HTTP requests by status") }
    private static var stageDuration: MetricNameDescriptor { name("stage_duration", "seconds", "Time spent per stage") }

    /// `loupe_<metric>_<unit>` with its help text.
    private static func name(_ metric: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "loupe", metricName: metric, unitName: unit, helpText: help)
    }

    /// Counts one result storage lookup or write.
    func countResultStorage(_ outcome: ResultStorage.Outcome) {
        resultStorage[outcome]?.increment()
    }

    /// Counts one answered request.
    func countRequest(status: Int) {
        let counter = requestCounters.withLock { counters in
            if let counter = counters[status] { return counter }
            let counter = registry.makeCounter(descriptor: Self.requests, labels: [("status", String(status))])
            counters[status] = counter
            return counter
        }
        counter.increment()
    }

    /// Counts one request refused with 429.
    func countRefusal(_ reason: AdmissionGate.Refusal) {
        refusals[reason]?.increment()
    }

    /// Records `duration` for `stage`.
    func stageDuration(_ stage: String, _ duration: Duration) {
        let histogram = stages[stage]
            ?? registry.makeDurationHistogram(descriptor: Self.stageDuration, labels: [("stage", stage)], buckets: stageBuckets)
        histogram.record(duration)
    }

    /// Records the time since `start` for `stage`.
    func record(stage: String, since start: ContinuousClock.Instant) {
        stageDuration(stage, start.duration(to: .now))
    }

    /// The exposition text, with the gauges that are read rather than counted brought up to date.
    func exposition(pipeline: ImagePipeline, admitted: Int, secondsPerRequest: Double?, budget: MemoryBudget? = nil,
                    encodingQueue: WorkQueue? = nil) -> [UInt8] {
        queueDepth.set(Double(admitted))
        self.secondsPerRequest.set(secondsPerRequest ?? 0)
        waiting["download"]?.set(Double(pipeline.waitingDataLoads))
        waiting["processing"]?.set(Double(pipeline.waitingProcessing))
        if let encodingQueue { waiting["encode"]?.set(Double(encodingQueue.waitingCount)) }
        if let budget {
            budgetInUse.set(Double(budget.inUse))
            budgetLimit.set(Double(budget.limit))
            budgetWaiting.set(Double(budget.waitingCount))
        }
        let statistics = pipeline.statistics
        let values: [(String, String, Int)] = [
            ("pipeline_requests", "Pipeline requests", statistics.requests),
            ("pipeline_coalesced_requests", "Requests that joined work already running", statistics.coalescedRequests),
            ("pipeline_memory_hits", "Pipeline memory cache hits", statistics.memoryHits),
            ("pipeline_disk_hits", "Pipeline disk cache hits (source data)", statistics.diskHits),
            ("pipeline_downloads", "Source downloads", statistics.downloads),
            ("pipeline_decodes", "Decodes", statistics.decodes),
        ]
        for (name, help, value) in values {
            registry.makeGauge(descriptor: Self.name(name, "", help)).set(Double(value))
        }
        return registry.emitToBuffer()
    }
}

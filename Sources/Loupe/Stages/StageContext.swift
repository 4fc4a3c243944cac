import LoupeCaching
import Logging

/// What the pipeline's stages share: its configuration and the services every stage reports
/// to. Each stage (a type owning its `SingleFlightLoader`, a file each) holds a copy and the
/// stage below it, never the pipeline: the pipeline owns its stages, not the reverse.
struct StageContext: Sendable {
    let configuration: ImagePipeline.Configuration
    let recorder: ImagePipeline.Recorder
    let logger: Logger
    /// Writes to `configuration.dataCache` in the background; `nil` without a disk cache.
    let dataCacheWriter: DiskCacheWriter?
    /// Bounds decoding and processing and orders them by priority.
    let processingQueue: WorkQueue

    /// Logs a failure of shared work once, at the configured level.
    func logFailure(_ error: ImagePipelineError, key: String) {
        logger.log(level: configuration.failureLogLevel, "failed", metadata: ["key": "\(key)", "error": "\(error)", "kind": "\(error.reason)"])
    }

    /// Runs CPU-bound `work` (the decode and process stages') in the processing queue (bounded,
    /// by priority) off the cooperative pool, unless the work was cancelled while it waited.
    /// Returns its result and duration.
    ///
    /// The queue runs it on a worker thread, and a worker that finishes runs the next waiting
    /// work itself: the waiting task is resumed once, with the result, instead of once to send
    /// its work to a worker and once more with the result.
    func runProcessingWork<T: Sendable>(
        priority: LoadPriority, _ work: @escaping @Sendable () throws -> T
    ) async throws -> (T, Duration) {
        try await processingQueue.runOffPool(priority: priority) {
            let start = ContinuousClock.now
            let value = try work()
            return (value, start.duration(to: .now))
        }
    }
}

extension SingleFlightLoader where Key == ImagePipeline.StageKey {
    /// A stage's value, with the loader's `LoadError` wrapper removed: the stages throw
    /// ``ImagePipelineError`` (or `CancellationError`) and pass them up unchanged.
    nonisolated(nonsending)
    func stageValue(for key: Key, priority: LoadPriority) async throws -> Value {
        do {
            return try await value(for: key, priority: priority)
        } catch let error as LoadError<Key> {
            throw error.underlying
        }
    }
}

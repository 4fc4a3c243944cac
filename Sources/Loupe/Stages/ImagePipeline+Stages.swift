import LoupeCaching

// One request's path through the pipeline, drawn once (each box is a file of its own):
//
//   image(for:) ─► response(for:priority:progress:)                      ImagePipeline.swift
//     │ memory hit? ── yes ──► ImageResponse(origin: .memory)
//     ▼ no: responseFromStages(for:...)
//   finalImageStage   runFinalImageStage: the processed image from disk    +FinalImageStage.swift
//     │               (.storeAll), else ▼; stores it in the memory cache
//     ▼ decodedOrProcessedImage — the one choice between the two below (this file)
//   processStage      runProcessStage: the last processor on the image     +ProcessStage.swift
//     │               without it, itself ▲ decodedOrProcessedImage, so a
//     │               shared processor prefix runs once
//     ▼
//   decodeStage       runDecodeStage: decode + downscale to the thumbnail  +DecodeStage.swift
//     ▼
//   dataStage         runDataStage: a local file or data URL, else the     +DataStage.swift
//                     disk cache (fresh, or revalidated) or the network,
//                     stored through DiskCacheWriter (LoupeCaching)
//
//   data(for:) ─► dataRequestStage (logs its failure once) ─► dataStage
//
// Each stage is a `SingleFlightLoader` keyed by a `StageKey` (ImagePipeline+Keys.swift): its work
// runs once per key however many requests want it, at the highest priority among them, and is
// cancelled only with the last of them. A stage's loader calls `run…Stage` on the pipeline
// through a `PipelineReference`; each stage's file makes its loader (`make…Stage`).

extension ImagePipeline {
    /// The image `key` names, from the stage that makes it: the decode stage when `key` has no
    /// processors, else the process stage. The one place that chooses between them.
    func decodedOrProcessedImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        if key.processors.isEmpty {
            return try await value(from: decodeStage, for: key.decoded, priority: priority)
        }
        return try await value(from: processStage, for: key, priority: priority)
    }

    /// A stage's value, with the stage loader's `LoadError` wrapper removed: the stages throw
    /// ``ImagePipelineError`` (or `CancellationError`) and pass them up unchanged.
    nonisolated(nonsending)
    func value<Value>(
        from stage: SingleFlightLoader<StageKey, Value>, for key: StageKey, priority: LoadPriority
    ) async throws -> Value {
        do {
            return try await stage.value(for: key, priority: priority)
        } catch let error as LoadError<StageKey> {
            throw error.underlying
        }
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

/// The pipeline as seen from its stages' loads: a weak reference set once the pipeline exists.
final class PipelineReference: Sendable {
    private struct Weak { weak var pipeline: ImagePipeline? }
    private let reference = Locked(Weak())

    func set(_ pipeline: ImagePipeline) {
        reference.withLock { $0.pipeline = pipeline }
    }

    /// The pipeline; a load that outlives it ends as cancelled.
    func pipeline() throws -> ImagePipeline {
        guard let pipeline = reference.withLock({ $0.pipeline }) else { throw CancellationError() }
        return pipeline
    }
}

import LoupeCaching
import LoupeCodecs
import LoupeProcessing

/// The process stage: a request's processors run one at a time, each on the result of the ones
/// before it, which is itself a load of this stage, so requests whose processors share a prefix
/// ([crop, resize, a] and [crop, resize, b]) compute it once. One load per processor prefix.
final class ProcessStage: Sendable {
    /// The processor runs in flight; each load asks it again for its input (a
    /// ``SingleFlightLoader/RecursiveLoad``).
    let loader: SingleFlightLoader<StageKey, StagedImage>
    private let work: Work

    init(context: StageContext, decodeStage: DecodeStage) {
        let work = Work(context: context, decodeStage: decodeStage)
        self.work = work
        // Its callers are the final image stage's loads and its own: a load starts on their thread.
        loader = SingleFlightLoader(memoryCache: nil, loadStart: .inline) { loader, key, priority in
            try await work.process(key, loader: loader, priority: priority)
        }
    }

    /// The image `key` names: the decode stage's when `key` has no processors, else this
    /// stage's. The one place that chooses between them.
    nonisolated(nonsending)
    func image(for key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        try await work.image(for: key, loader: loader, priority: priority)
    }

    /// The stage's work, apart from its loader so the loader's load can hold it.
    private struct Work: Sendable {
        let context: StageContext
        let decodeStage: DecodeStage

        nonisolated(nonsending)
        func image(for key: StageKey, loader: SingleFlightLoader<StageKey, StagedImage>, priority: LoadPriority) async throws -> StagedImage {
            if key.processors.isEmpty { return try await decodeStage.image(for: key.decoded, priority: priority) }
            return try await loader.stageValue(for: key, priority: priority)
        }

        /// Runs the last of `key`'s processors on the result of the ones before it, which is itself
        /// a shared stage: requests whose processors share a prefix compute that prefix once.
        func process(_ key: StageKey, loader: SingleFlightLoader<StageKey, StagedImage>, priority: LoadPriority) async throws -> StagedImage {
            var staged = try await image(for: key.withoutLastProcessor, loader: loader, priority: priority)
            // `image(for:)` sends a key without processors to the decode stage, so this stage always
            // has one; without, its input would already be its result.
            guard let processor = key.processors.last else { return staged }
            let input = staged.container.bitmap
            // The first processor, when it chose the decode's scale, gets its plan from the source's
            // header (made by the decode stage) with the (maybe smaller) decode, to compute its
            // geometry as on the full image.
            let scaling = key.processors.count == 1 ? key.sourceScaling : nil
            let sourcePlan = staged.sourcePlan
            let metadata = staged.container.metadata
            let turned = metadata.orientation.swapsDimensions
            let (sourceWidth, sourceHeight) = turned ? (metadata.height, metadata.width) : (metadata.width, metadata.height)
            let inputLaterFrames = staged.container.laterFrames
            let budget = context.configuration.memoryBudget
            // Every frame of an animation through the same step, one after the other in one work item.
            let ((bitmap, laterFrames, reservation), duration) = try await context.runProcessingWork(priority: priority) {
                // The step's buffers and output count against the memory budget while it runs, as
                // a decode's pixels do (taken at once: the work is committed), then the output's
                // pixels for as long as the image is held.
                let working = budget.map { $0.reserveNow(ProcessStage.workingBytes(of: processor, input: input, frames: inputLaterFrames.count + 1)) }
                defer { working?.release() }
                let (bitmap, laterFrames): (Bitmap, [ImageFrame])
                do {
                    // A still image (and a first-frame request) takes the plain path, without arrays.
                    if inputLaterFrames.isEmpty {
                        bitmap = try scaling.map { try $0.process(input, anyPlan: sourcePlan, sourceWidth: sourceWidth, sourceHeight: sourceHeight) }
                            ?? processor.process(input)
                        laterFrames = inputLaterFrames
                    } else {
                        // Animations (GIF, WebP) decode in full, so their frames need no source size.
                        let processed = try processor.process(frames: [input] + inputLaterFrames.map(\.bitmap))
                        guard processed.count == inputLaterFrames.count + 1, let first = processed.first else {
                            throw ProcessingError.invalidParameter("\(processor.identifier) returned \(processed.count) frames for \(inputLaterFrames.count + 1)")
                        }
                        var frames = inputLaterFrames
                        for index in frames.indices { frames[index].bitmap = processed[index + 1] }
                        (bitmap, laterFrames) = (first, frames)
                    }
                } catch {
                    throw ImagePipelineError.processingFailed(processor: processor.identifier, error)
                }
                return (bitmap, laterFrames, budget.map { $0.reserveNow(bitmap.byteCount * (laterFrames.count + 1)) })
            }
            context.recorder.record(.processorRuns)
            context.logger.debug("processed", metadata: [
                "key": "\(key)", "stage": "process", "processor": "\(processor.identifier)",
                "size": "\(bitmap.width)x\(bitmap.height)", "duration": "\(duration)",
            ])
            staged.container.bitmap = bitmap
            staged.container.laterFrames = laterFrames
            // The input's pixels are no longer this image's: their share of the budget goes with them.
            staged.reservation = reservation
            staged.sourcePlan = nil
            staged.timings.processing = (staged.timings.processing ?? .zero) + duration
            return staged
        }
    }

    /// The bytes a step allocates on `frames` frames of `input`'s size while it runs (its
    /// scratch and output, as the step estimates them; an output of the input's size for a step
    /// that does not).
    static func workingBytes(of processor: any ImageProcessing, input: Bitmap, frames: Int) -> Int {
        let estimate = (processor as? any CostEstimating)?.estimatedCost(width: input.width, height: input.height).bytes
        let bytes = (estimate ?? Double(input.byteCount)) * Double(max(1, frames))
        return bytes < Double(Int.max / 2) ? Int(bytes) : Int.max / 2
    }
}

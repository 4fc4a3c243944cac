import LoupeCaching
import LoupeProcessing

extension ImagePipeline {
    /// The process stage's loader: one load per processor prefix, so [crop, resize, a] and
    /// [crop, resize, b] share crop and resize.
    static func makeProcessStage(_ owner: PipelineReference) -> SingleFlightLoader<StageKey, StagedImage> {
        SingleFlightLoader(memoryCache: nil) { key, priority in
            try await owner.pipeline().runProcessStage(key, priority: priority)
        }
    }

    /// Runs the last of `key`'s processors on the result of the ones before it, which is itself
    /// a shared stage: requests whose processors share a prefix compute that prefix once.
    func runProcessStage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        var staged = try await decodedOrProcessedImage(key.withoutLastProcessor, priority: priority)
        // `decodedOrProcessedImage` sends a key without processors to the decode stage, so this
        // stage always has one; without, its input would already be its result.
        guard let processor = key.processors.last else { return staged }
        let input = staged.container.bitmap
        // The first processor, when it chose the decode's scale, gets the source's upright size
        // with the (maybe smaller) decode, to compute its geometry as on the full image.
        let scaling = key.processors.count == 1 ? key.sourceScaling : nil
        let metadata = staged.container.metadata
        let turned = metadata.orientation.swapsDimensions
        let (sourceWidth, sourceHeight) = turned ? (metadata.height, metadata.width) : (metadata.width, metadata.height)
        let inputLaterFrames = staged.container.laterFrames
        // Every frame of an animation through the same step, one after the other in one work item.
        let ((bitmap, laterFrames), duration) = try await runProcessingWork(priority: priority) {
            do {
                // A still image (and a first-frame request) takes the plain path, without arrays.
                if inputLaterFrames.isEmpty {
                    if let scaling { return (try scaling.process(input, sourceWidth: sourceWidth, sourceHeight: sourceHeight), inputLaterFrames) }
                    return (try processor.process(input), inputLaterFrames)
                }
                // Animations (GIF, WebP) decode in full, so their frames need no source size.
                let processed = try processor.process(frames: [input] + inputLaterFrames.map(\.bitmap))
                guard processed.count == inputLaterFrames.count + 1, let first = processed.first else {
                    throw ProcessingError.invalidParameter("\(processor.identifier) returned \(processed.count) frames for \(inputLaterFrames.count + 1)")
                }
                var laterFrames = inputLaterFrames
                for index in laterFrames.indices { laterFrames[index].bitmap = processed[index + 1] }
                return (first, laterFrames)
            } catch {
                throw ImagePipelineError.processingFailed(processor: processor.identifier, error)
            }
        }
        recorder.record(.processorRuns)
        logger.debug("processed", metadata: [
            "key": "\(key)", "stage": "process", "processor": "\(processor.identifier)",
            "size": "\(bitmap.width)x\(bitmap.height)", "duration": "\(duration)",
        ])
        staged.container.bitmap = bitmap
        staged.container.laterFrames = laterFrames
        // The input's pixels are no longer this image's: their share of the budget goes with them.
        staged.reservation = nil
        staged.timings.processing = (staged.timings.processing ?? .zero) + duration
        return staged
    }
}

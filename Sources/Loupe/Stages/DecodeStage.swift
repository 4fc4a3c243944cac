import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeProcessing

/// The decode stage: the data decoded and downscaled to the request's thumbnail size, or, for a
/// first processor that scales the image down itself, at the smallest scale it still needs.
/// One load per (data, thumbnail size or scaling first processor), however many requests and
/// processor chains wait for it.
package final class DecodeStage: Sendable {
    /// The decodes in flight.
    let loader: SingleFlightLoader<StageKey, StagedImage>
    private let work: Work

    init(context: StageContext, dataStage: DataStage) {
        let work = Work(context: context, dataStage: dataStage)
        self.work = work
        // Its callers are the process and final image stages' loads: a decode's load starts on
        // their thread.
        loader = SingleFlightLoader(memoryCache: nil, loadStart: .inline) { key, priority in
            try await work.image(for: key, priority: priority)
        }
    }

    /// The image `key` names without its processors (its ``ImagePipeline/StageKey/decoded`` form).
    nonisolated(nonsending)
    func image(for key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        try await loader.stageValue(for: key, priority: priority)
    }

    /// A processed image stored on disk, decoded as it is (never downscaled again), in the
    /// processing queue; not shared with other loads.
    func decodeStoredImage(_ data: Data, priority: LoadPriority) async throws -> Decoded {
        try await work.decode(data, thumbnail: nil, priority: priority)
    }

    /// A decode's result: the image, how long the decode took, the decoded pixels' share of the
    /// memory budget (if there is one, for the caller to hold as long as it holds the pixels),
    /// and the first processor's plan when the decode was made for it.
    struct Decoded {
        var value: ImageContainer
        var duration: Duration
        var reservation: MemoryReservation?
        var sourcePlan: (any Sendable)?
    }

    /// The stage's work, apart from its loader so the loader's load can hold it.
    private struct Work: Sendable {
        let context: StageContext
        let dataStage: DataStage

        /// Decodes the data, downscaled to the thumbnail size: straight from the codec where it can
        /// (JPEG's DCT scaling, WebP's scaler), then resized to fit exactly; or, for a first
        /// processor that scales the image down itself, at the smallest scale it still needs.
        func image(for key: StageKey, priority: LoadPriority) async throws -> StagedImage {
            let fetched = try await dataStage.data(for: key.data, priority: priority)
            let container: Decoded
            do {
                container = try await decode(fetched.data, thumbnail: key.image.thumbnail, maximumFrames: key.image.maximumFrames,
                                             decoding: key.image.decoding, sourceScaling: key.sourceScaling,
                                             priority: priority)
            } catch let error as ImagePipelineError {
                discardUndecodableData(fetched, forKey: key.image.dataKey, error: error)
                throw error
            }
            context.logger.debug("decoded", metadata: [
                "key": "\(key)", "stage": "decode", "size": "\(container.value.bitmap.width)x\(container.value.bitmap.height)",
                "duration": "\(container.duration)",
            ])
            return StagedImage(
                container: container.value, origin: fetched.origin, isRevalidated: fetched.isRevalidated,
                timings: ImageTimings(dataLoad: fetched.duration, decode: container.duration), data: fetched.data,
                reservation: container.reservation, sourcePlan: container.sourcePlan, stale: fetched.stale)
        }

        /// Removes data that turned out not to decode from the disk cache. The data stage stores a
        /// download once its header reads as an image; a body that is complete by HTTP but corrupt
        /// inside (a file cut short on the server, say) only fails here. Kept, it would fail every
        /// request from disk, without asking the server, until it expires. Data over the decoding
        /// limits is valid and stays: downloading it again would only fail again.
        private func discardUndecodableData(_ fetched: FetchedData, forKey dataKey: String, error: ImagePipelineError) {
            guard case .decodingFailed = error, error.reason != .limitExceeded, fetched.origin == .network || fetched.origin == .disk,
                  let dataCacheWriter = context.dataCacheWriter, dataCacheWriter.entry(forKey: dataKey)?.data == fetched.data
            else { return }
            dataCacheWriter.remove(forKey: dataKey)
            context.logger.warning("undecodable data removed from the disk cache", metadata: ["key": "\(dataKey)", "error": "\(error)"])
        }

        /// Decodes in the processing queue (also for the final image stage's processed images
        /// stored on disk), reading the header once: what depends on it — the first processor's
        /// plan and the decode's scale for it, the pixels' share of the memory budget (taken on
        /// the worker, without waiting: the decode is committed, and only the end of its pixels,
        /// processed or the request done, gives the memory back; on failure it is dropped here,
        /// which releases it) — is decided between the header and the pixels.
        func decode(
            _ data: Data, thumbnail: Int?, maximumFrames: Int = 1, decoding: ImagePipeline.DecodeChoices = .init(),
            sourceScaling: (any SourceScaledProcessing)? = nil, priority: LoadPriority
        ) async throws -> Decoded {
            let decoder = context.configuration.decoder
            let limits = context.configuration.decodingLimits
            let budget = context.configuration.memoryBudget
            let (decoded, duration) = try await context.runProcessingWork(priority: priority) {
                var reservation: MemoryReservation?
                var sourcePlan: (any Sendable)?
                let container = try DecodeStage.decodeWork(data, thumbnail: thumbnail, maximumFrames: maximumFrames,
                                                           decoding: decoding, decoder: decoder,
                                                           limits: limits) { metadata, options in
                    if let sourceScaling {
                        // Refused from the header, before the decode's memory is taken.
                        do {
                            try sourceScaling.checkSource(metadata, bytes: data.count, maximumFrames: maximumFrames)
                        } catch {
                            throw ImagePipelineError.processingFailed(processor: sourceScaling.identifier, error)
                        }
                        let planned = try DecodeStage.plan(sourceScaling, for: metadata)
                        sourcePlan = planned.plan
                        options.minimumScale = planned.minimumScale
                    }
                    reservation = budget.map {
                        $0.reserveNow(DecodeStage.decodedBytes(of: metadata, thumbnail: thumbnail, maximumFrames: maximumFrames,
                                                               minimumScale: options.minimumScale, keepsDeepSamples: options.keepsDeepSamples))
                    }
                }
                return Decoded(value: container, duration: .zero, reservation: reservation, sourcePlan: sourcePlan)
            }
            context.recorder.record(.decodes)
            var result = decoded
            result.duration = duration
            return result
        }
    }

    /// `sourceScaling`'s plan for the source `metadata` describes (its size as it will be
    /// decoded: upright), and the share of the source's size the plan needs decoded. A plan
    /// over the processor's limits fails here, before the decode, as the processor's failure.
    static func plan(_ sourceScaling: any SourceScaledProcessing, for metadata: ImageMetadata) throws
        -> (plan: any Sendable, minimumScale: Double) {
        let turned = metadata.orientation.swapsDimensions
        let (width, height) = turned ? (metadata.height, metadata.width) : (metadata.width, metadata.height)
        do {
            return try planned(sourceScaling, width: width, height: height)
        } catch {
            throw ImagePipelineError.processingFailed(processor: sourceScaling.identifier, error)
        }
    }

    private static func planned<Scaling: SourceScaledProcessing>(_ scaling: Scaling, width: Int, height: Int) throws(ProcessingError)
        -> (plan: any Sendable, minimumScale: Double) {
        let plan = try scaling.plan(sourceWidth: width, sourceHeight: height)
        let scale = scaling.minimumSourceScale(for: plan)
        return (plan, scale.isFinite && scale > 0 ? min(scale, 1) : 1)
    }

    /// The bytes of pixels decoding an image with this header allocates: at the reduced scale
    /// JPEG decodes a thumbnail or a scaled source at (N/8), else in full, times the frames kept
    /// of an animation; three times that for 16-bit samples kept beside the 8-bit pixels
    /// (`keepsDeepSamples` and a source that has them). 0 for data whose header does not read
    /// (the decode fails at once).
    static func decodedBytes(of metadata: ImageMetadata?, thumbnail: Int?, maximumFrames: Int = 1, minimumScale: Double? = nil,
                             keepsDeepSamples: Bool = false) -> Int {
        guard let metadata else { return 0 }
        var (width, height) = (max(0, metadata.width), max(0, metadata.height))
        if metadata.format == .jpeg {
            let eighths = JPEGDecoder.scaleEighths(width: width, height: height, maxPixelSize: thumbnail, minimumScale: minimumScale)
            (width, height) = ((width * eighths + 7) / 8, (height * eighths + 7) / 8)
        }
        let frames = max(1, min(metadata.frameCount, maximumFrames))
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        let (total, overflowFrames) = pixels.multipliedReportingOverflow(by: frames)
        // 8 bytes a pixel for the 16-bit samples, 4 for their 8-bit rounding.
        let bytesPerPixel = keepsDeepSamples && metadata.hasDeepSamples ? 12 : 4
        return overflow || overflowFrames ? Int.max / 8 : min(total, Int.max / 16) * bytesPerPixel
    }

    /// The decode stage's CPU work, synchronous: decode (downscaled by the codec where it can,
    /// to `thumbnail` or to the scale `afterHeader` sets from the header, which is read once),
    /// then resize to fit `thumbnail`, then
    /// convert the colours to sRGB — after the resize, so a thumbnail converts only its own
    /// pixels. Package-visible so the benchmarks can count its instructions under callgrind,
    /// which cannot run the concurrency runtime's threads here. `maximumFrames` above 1 keeps
    /// that many of an animation's frames, each treated the same way.
    package static func decodeWork(_ data: Data, thumbnail: Int?, maximumFrames: Int = 1, decoding: ImagePipeline.DecodeChoices = .init(),
                                   decoder: any ImageDecoding, limits: DecodingLimits,
                                   afterHeader: HeaderDecision = { _, _ in }) throws -> ImageContainer {
        let appliesOrientation = decoding.appliesOrientation
        var options = DecodingOptions(maxPixelSize: thumbnail, appliesOrientation: appliesOrientation, firstFrameOnly: maximumFrames <= 1,
                                      limits: limits, colorManagement: thumbnail == nil ? .convertToSRGB : .convertToSRGBAfterResizing)
        if maximumFrames > 1 { options.maximumFrames = maximumFrames }
        options.usesEmbeddedThumbnail = decoding.usesEmbeddedThumbnail
        options.keepsDeepSamples = decoding.keepsDeepSamples
        var image: DecodedImage
        do {
            // Kept as stored, the pixels are upright as they are: every later step (the first
            // processor's plan from the header, the source size) sees no orientation to undo.
            image = try decoder.decode(data, options: options) { metadata, options in
                var seen = metadata
                if !appliesOrientation { seen.orientation = .up }
                try afterHeader(seen, &options)
            }
        } catch let error as ImagePipelineError {
            throw error
        } catch {
            throw ImagePipelineError.decodingFailed(error)
        }
        if !appliesOrientation { image.metadata.orientation = .up }
        var bitmap = image.bitmap
        if let thumbnail, max(bitmap.width, bitmap.height) > thumbnail {
            do {
                bitmap = try ImageProcessors.Resize(maxPixelSize: thumbnail).process(bitmap)
            } catch {
                throw ImagePipelineError.decodingFailed(error)
            }
        }
        image.pendingColorConversion?.apply(to: &bitmap)
        var container = ImageContainer(bitmap: bitmap, metadata: image.metadata, dataCount: data.count)
        guard !image.laterFrames.isEmpty else { return container }
        container.firstFrameDuration = image.firstFrame.duration
        container.laterFrames = try image.laterFrames.map { frame in
            var frame = frame
            if let thumbnail, max(frame.bitmap.width, frame.bitmap.height) > thumbnail {
                do {
                    frame.bitmap = try ImageProcessors.Resize(maxPixelSize: thumbnail).process(frame.bitmap)
                } catch {
                    throw ImagePipelineError.decodingFailed(error)
                }
            }
            image.pendingColorConversion?.apply(to: &frame.bitmap)
            return frame
        }
        return container
    }
}

import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeProcessing

extension ImagePipeline {
    /// The final stage of a request: the processed image (from the disk cache when processed
    /// images are stored there), stored in the memory cache before the load ends.
    func loadImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        recorder.record(.loadsStarted)
        let staged: StagedImage
        if let stored = try await storedProcessedImage(key, priority: priority) {
            staged = stored
        } else {
            staged = try await stagedImage(key, priority: priority)
            if storesProcessedImage(key) { storeProcessedImage(staged, key) }
        }
        var cached = staged
        cached.data = nil
        memoryCache?.setValue(cached, forKey: key.image, cost: staged.container.cost)
        return staged
    }

    /// The image `key` names, from the stage that makes it: the decode stage when `key` has no
    /// processors, else the process stage. The one place that chooses between them.
    func stagedImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        if key.processors.isEmpty {
            return try await value(from: decodedStage, for: key.decoded, priority: priority)
        }
        return try await value(from: processedStage, for: key, priority: priority)
    }

    /// Runs the last of `key`'s processors on the result of the ones before it, which is itself
    /// a shared stage: requests whose processors share a prefix compute that prefix once.
    func processImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        var staged = try await stagedImage(key.withoutLastProcessor, priority: priority)
        // `stagedImage` sends a key without processors to the decode stage, so this stage always
        // has one; without, its input would already be its result.
        guard let processor = key.processors.last else { return staged }
        let input = staged.container.bitmap
        let (bitmap, duration) = try await runProcessingWork(priority: priority) {
            do {
                return try processor.process(input)
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
        staged.timings.processing = (staged.timings.processing ?? .zero) + duration
        return staged
    }

    /// Decodes the data, downscaled to the thumbnail size: straight from the codec where it can
    /// (JPEG's DCT scaling, WebP's scaler), then resized to fit exactly.
    func decodeImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        let fetched = try await value(from: dataStage, for: key.data, priority: priority)
        let container: (value: ImageContainer, duration: Duration)
        do {
            container = try await decode(fetched.data, thumbnail: key.image.thumbnail, priority: priority)
        } catch let error as ImagePipelineError {
            discardUndecodableData(fetched, forKey: key.image.dataKey, error: error)
            throw error
        }
        logger.debug("decoded", metadata: [
            "key": "\(key)", "stage": "decode", "size": "\(container.value.bitmap.width)x\(container.value.bitmap.height)",
            "duration": "\(container.duration)",
        ])
        return StagedImage(
            container: container.value, origin: fetched.origin, isRevalidated: fetched.isRevalidated,
            timings: ImageTimings(dataLoad: fetched.duration, decode: container.duration), data: fetched.data)
    }

    /// Removes data that turned out not to decode from the disk cache. The data stage stores a
    /// download once its header reads as an image; a body that is complete by HTTP but corrupt
    /// inside (a file cut short on the server, say) only fails here. Kept, it would fail every
    /// request from disk, without asking the server, until it expires. Data over the decoding
    /// limits is valid and stays: downloading it again would only fail again.
    private func discardUndecodableData(_ fetched: FetchedData, forKey dataKey: String, error: ImagePipelineError) {
        guard fetched.origin == .network || fetched.origin == .disk, error.kind != "limitExceeded",
              let dataCacheWriter, dataCacheWriter.entry(forKey: dataKey)?.data == fetched.data
        else { return }
        dataCacheWriter.remove(forKey: dataKey)
        logger.warning("undecodable data removed from the disk cache", metadata: ["key": "\(dataKey)", "error": "\(error)"])
    }

    private func decode(_ data: Data, thumbnail: Int?, priority: LoadPriority) async throws -> (value: ImageContainer, duration: Duration) {
        let decoder = configuration.decoder
        let limits = configuration.decodingLimits
        let result = try await runProcessingWork(priority: priority) {
            try Self.decodeWork(data, thumbnail: thumbnail, decoder: decoder, limits: limits)
        }
        recorder.record(.decodes)
        return result
    }

    /// The decode stage's CPU work, synchronous: decode (downscaled by the codec where it can),
    /// then resize to fit `thumbnail`. Package-visible so the benchmarks can count its
    /// instructions under callgrind, which cannot run the concurrency runtime's threads here.
    package static func decodeWork(_ data: Data, thumbnail: Int?, decoder: any ImageDecoding, limits: DecodingLimits) throws -> ImageContainer {
        let options = DecodingOptions(maxPixelSize: thumbnail, appliesOrientation: true, firstFrameOnly: true, limits: limits)
        let image: DecodedImage
        do {
            image = try decoder.decode(data, options: options)
        } catch {
            throw ImagePipelineError.decodingFailed(error)
        }
        var bitmap = image.bitmap
        if let thumbnail, max(bitmap.width, bitmap.height) > thumbnail {
            do {
                bitmap = try Resize(maxPixelSize: thumbnail).process(bitmap)
            } catch {
                throw ImagePipelineError.decodingFailed(error)
            }
        }
        return ImageContainer(bitmap: bitmap, metadata: image.metadata, dataCount: data.count)
    }

    /// Runs CPU-bound `work` in the processing queue (bounded, by priority) off the cooperative
    /// pool, unless the work was cancelled while it waited. Returns its result and duration.
    private func runProcessingWork<T: Sendable>(
        priority: LoadPriority, _ work: @escaping @Sendable () throws -> T
    ) async throws -> (T, Duration) {
        try await processingQueue.run(priority: priority) {
            try Task.checkCancellation()
            return try await runOffCooperativePool {
                let start = ContinuousClock.now
                let value = try work()
                return (value, start.duration(to: .now))
            }
        }
    }

    // MARK: Processed images on disk

    /// Whether `key`'s final image is one that ``DataCachePolicy/storeAll`` keeps on disk.
    private func storesProcessedImage(_ key: StageKey) -> Bool {
        configuration.dataCachePolicy == .storeAll && dataCacheWriter != nil
            && (key.image.thumbnail != nil || !key.processors.isEmpty)
    }

    private func storedProcessedImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage? {
        guard storesProcessedImage(key), key.cachePolicy == .useCache || key.cachePolicy == .returnCacheDataDontLoad,
              let entry = dataCacheWriter?.entry(forKey: key.image.diskKey)
        else { return nil }
        guard !entry.isExpired || key.cachePolicy == .returnCacheDataDontLoad else { return nil }
        // Stored already at its final size: decoded as is, never downscaled again.
        guard let decoded = try? await decode(entry.data, thumbnail: nil, priority: priority) else { return nil }
        recorder.record(.diskHits)
        return StagedImage(
            container: decoded.value, origin: .disk, isRevalidated: false,
            timings: ImageTimings(decode: decoded.duration))
    }

    /// Encodes and stores a processed image in the background: the response does not wait.
    private func storeProcessedImage(_ staged: StagedImage, _ key: StageKey) {
        guard let dataCacheWriter else { return }
        let bitmap = staged.container.bitmap
        let diskKey = key.image.diskKey
        let expiresAt = configuration.defaultTimeToLive.map { configuration.now().addingTimeInterval($0) }
        let logger = self.logger
        Task.detached(priority: .background) { [processingQueue] in
            do {
                let data = try await processingQueue.run(priority: LoadPriority(.background)) {
                    try await runOffCooperativePool {
                        try ImageEncoder().encode(bitmap, as: bitmap.hasTransparency ? .png : .jpeg(quality: 90))
                    }
                }
                dataCacheWriter.store(data, forKey: diskKey, expiry: DiskCacheExpiry(expiresAt: expiresAt))
            } catch {
                logger.warning("encoding a processed image failed", metadata: ["key": "\(diskKey)", "error": "\(error)"])
            }
        }
    }
}

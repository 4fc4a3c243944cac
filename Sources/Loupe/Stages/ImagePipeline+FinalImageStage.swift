import Foundation
import LoupeCaching
import LoupeCodecs

extension ImagePipeline {
    /// The final image stage's loader: one load per (data key, thumbnail, processors, cache
    /// policy). A failure is logged here, in the work every request for the image shares, so ten
    /// requests waiting for one missing image log one line (each still counts in statistics).
    static func makeFinalImageStage(_ owner: PipelineReference) -> SingleFlightLoader<StageKey, StagedImage> {
        SingleFlightLoader(memoryCache: nil) { key, priority in
            let pipeline = try owner.pipeline()
            do {
                return try await pipeline.runFinalImageStage(key, priority: priority)
            } catch let error as ImagePipelineError {
                pipeline.logFailure(error, key: "\(key)")
                throw error
            }
        }
    }

    /// The final stage of a request: the processed image (from the disk cache when processed
    /// images are stored there), stored in the memory cache before the load ends, so no request
    /// can miss both the cache and the load.
    func runFinalImageStage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        recorder.record(.loadsStarted)
        let staged: StagedImage
        if let stored = try await storedProcessedImage(key, priority: priority) {
            staged = stored
        } else {
            staged = try await decodedOrProcessedImage(key, priority: priority)
            if storesProcessedImage(key) { storeProcessedImage(staged, key) }
        }
        var cached = staged
        cached.data = nil
        cached.reservation = nil
        memoryCache?.setValue(cached, forKey: key.image, cost: staged.container.cost)
        return staged
    }

    // MARK: Processed images on disk

    /// Whether `key`'s final image is one that ``DataCachePolicy/storeAll`` keeps on disk.
    private func storesProcessedImage(_ key: StageKey) -> Bool {
        configuration.dataCachePolicy == .storeAll && dataCacheWriter != nil
            && (key.image.thumbnail != nil || !key.processors.isEmpty)
            // Stored as one JPEG or PNG, an animation would come back as its first frame.
            && key.image.maximumFrames == 1
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
            timings: ImageTimings(decode: decoded.duration), reservation: decoded.reservation)
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
                let data = try await processingQueue.runOffPool(priority: LoadPriority(.background)) {
                    try ImageEncoder().encode(bitmap, as: bitmap.hasTransparency ? .png : .jpeg(quality: 90))
                }
                dataCacheWriter.store(data, forKey: diskKey, expiry: DiskCacheExpiry(expiresAt: expiresAt))
            } catch {
                logger.warning("encoding a processed image failed", metadata: ["key": "\(diskKey)", "error": "\(error)"])
            }
        }
    }
}

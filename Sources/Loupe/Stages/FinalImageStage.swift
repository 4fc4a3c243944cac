import Foundation
import LoupeCaching
import LoupeCodecs

/// The final image stage, the top of a request's path after the memory cache: the processed
/// image (from the disk cache when processed images are stored there), stored in the memory
/// cache before its load ends, and looked up there again when a load starts, so no request
/// that may read the cache loads an image twice. One load
/// per (data key, thumbnail, processors, cache policy). A failure is logged here, in the work
/// every request for the image shares, so ten requests waiting for one missing image log one
/// line (each still counts in statistics).
final class FinalImageStage: Sendable {
    /// The final images in flight.
    let loader: SingleFlightLoader<StageKey, StagedImage>

    init(context: StageContext, memoryCache: MemoryCache<ImagePipeline.ImageKey, StagedImage>?,
         processStage: ProcessStage, decodeStage: DecodeStage) {
        let work = Work(context: context, memoryCache: memoryCache, processStage: processStage, decodeStage: decodeStage)
        loader = SingleFlightLoader(memoryCache: nil, loadStart: .inlineOffActors) { key, priority in
            do {
                return try await work.image(for: key, priority: priority)
            } catch let error as ImagePipelineError {
                context.logFailure(error, key: "\(key)")
                throw error
            }
        }
    }

    /// The image `key` names, processed (and kept in the memory cache).
    nonisolated(nonsending)
    func image(for key: StageKey, priority: LoadPriority) async throws -> StagedImage {
        try await loader.stageValue(for: key, priority: priority)
    }

    /// How a processed copy stored on disk is written: JPEG, or PNG with transparency, whatever
    /// the source (the copy is only read back).
    static let storedCopy = OutputChoice(keepsSourceFormat: false, quality: 90)

    /// The stage's work, apart from its loader so the loader's load can hold it.
    private struct Work: Sendable {
        let context: StageContext
        let memoryCache: MemoryCache<ImagePipeline.ImageKey, StagedImage>?
        let processStage: ProcessStage
        let decodeStage: DecodeStage

        var configuration: ImagePipeline.Configuration { context.configuration }

        func image(for key: StageKey, priority: LoadPriority) async throws -> StagedImage {
            // The pipeline looks in the memory cache before it asks this stage's loader, and a
            // load stores its image there before its flight ends: a request that looked before
            // the store and asked after the end starts this load, and is answered here (it
            // counts as having joined that load).
            if let justStored = memoryCopy(key) { return justStored }
            context.recorder.record(.loadsStarted)
            let staged: StagedImage
            if let stored = try await storedProcessedImage(key, priority: priority) {
                staged = stored
            } else {
                staged = try await processStage.image(for: key, priority: priority)
                // An image of stale data is answered, never kept: the next request asks again.
                guard staged.stale == nil else { return staged }
                if storesProcessedImage(key), !key.cacheUse.options.contains(.skipProcessedImageWrite) { storeProcessedImage(staged, key) }
            }
            guard !key.cacheUse.options.contains(.skipMemoryCacheWrite) else { return staged }
            var cached = staged
            cached.data = nil
            cached.reservation = nil
            memoryCache?.setValue(cached, forKey: key.image, cost: staged.container.cost, timeToLive: key.cacheUse.lifetime)
            return staged
        }

        /// The memory cache's copy of `key`'s image, when the request may read it.
        private func memoryCopy(_ key: StageKey) -> StagedImage? {
            guard key.cachePolicy.readsMemory(key.cacheUse), var copy = memoryCache?.value(forKey: key.image)
            else { return nil }
            copy.origin = .memory
            copy.isRevalidated = false
            copy.timings = ImageTimings()
            return copy
        }

        // MARK: Processed images on disk

        /// Whether `key`'s final image is one that ``DataCachePolicy/storeAll`` keeps on disk.
        private func storesProcessedImage(_ key: StageKey) -> Bool {
            configuration.dataCachePolicy == .storeAll && context.dataCacheWriter != nil
                && (key.image.thumbnail != nil || !key.processors.isEmpty)
                // Stored as one JPEG or PNG, an animation would come back as its first frame.
                && key.image.maximumFrames == 1
        }

        private func storedProcessedImage(_ key: StageKey, priority: LoadPriority) async throws -> StagedImage? {
            guard storesProcessedImage(key), key.cachePolicy == .useCache || key.cachePolicy == .returnCacheDataDontLoad,
                  !key.cacheUse.options.contains(.skipProcessedImageRead),
                  let entry = context.dataCacheWriter?.entry(forKey: key.image.diskKey)
            else { return nil }
            guard !entry.isExpired || key.cachePolicy == .returnCacheDataDontLoad else { return nil }
            guard let decoded = try? await decodeStage.decodeStoredImage(entry.data, priority: priority) else { return nil }
            context.recorder.record(.diskHits)
            return StagedImage(
                container: decoded.value, origin: .disk, isRevalidated: false,
                timings: ImageTimings(decode: decoded.duration), reservation: decoded.reservation)
        }

        /// Encodes and stores a processed image in the background: the response does not wait.
        private func storeProcessedImage(_ staged: StagedImage, _ key: StageKey) {
            guard let dataCacheWriter = context.dataCacheWriter else { return }
            let bitmap = staged.container.bitmap
            let source = staged.container.metadata.format
            let diskKey = key.image.diskKey
            let lifetime = key.cacheUse.lifetime.map(\.timeInterval) ?? configuration.defaultTimeToLive
            let expiresAt = lifetime.map { configuration.now().addingTimeInterval($0) }
            let logger = context.logger
            Task.detached(priority: .background) { [processingQueue = context.processingQueue] in
                do {
                    let data = try await processingQueue.runOffPool(priority: LoadPriority(.background)) {
                        let output = FinalImageStage.storedCopy.decide(source: source, transparent: bitmap.hasTransparency, animated: false)
                        return try ImageEncoder().encode(bitmap, as: output.encoderFormat())
                    }
                    dataCacheWriter.store(data, forKey: diskKey, expiry: DiskCacheExpiry(expiresAt: expiresAt))
                } catch {
                    logger.warning("encoding a processed image failed", metadata: ["key": "\(diskKey)", "error": "\(error)"])
                }
            }
        }
    }
}

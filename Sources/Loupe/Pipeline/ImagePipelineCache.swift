import Foundation
import LoupeCaching

/// The pipeline's caches in code: look up, store and remove images (the memory cache) and data
/// (the disk cache) under the keys the pipeline's requests use, and trim the memory cache.
/// Got from ``ImagePipeline/cache``; a value, cheap to make.
///
/// ```swift
/// let request = ImageRequest(url: avatarURL)
/// pipeline.cache.storeImage(rendered, for: request, lifetime: .seconds(600))
/// pipeline.cache.storeData(jpegBytes, for: request)                 // served by the next load
/// let shown = pipeline.cache.image(for: request)
/// pipeline.cache.trim(to: 16 << 20)                                 // the app knows it is short of memory
/// ```
public struct ImagePipelineCache: Sendable {
    let memoryCache: MemoryCache<ImagePipeline.ImageKey, StagedImage>?
    let dataCacheWriter: DiskCacheWriter?
    let configuration: ImagePipeline.Configuration

    /// The image `request` would be answered from the memory cache with, or `nil`.
    ///
    /// - Parameter request: what identifies the image: its source, thumbnail size and processors. Its
    ///   cache policy and cache options are not consulted.
    /// - Returns: the memory cache's image, or `nil` when it holds none or is disabled.
    public func image(for request: ImageRequest) -> ImageContainer? {
        memoryCache?.value(forKey: ImagePipeline.ImageKey(request))?.container
    }

    /// Keeps `image` in the memory cache as the image of `request` (its source, thumbnail and
    /// processors), so the next request for it is a memory hit.
    ///
    /// - Parameters:
    ///   - image: the image, as the request would produce it.
    ///   - request: the request it answers.
    ///   - lifetime: how long it stays; `nil` for the request's ``ImageRequest/cacheLifetime``,
    ///     else the configuration's ``ImagePipeline/Configuration/memoryCacheTimeToLive``.
    /// - Returns: `false` when it was not kept: no memory cache, or its cost is over the share
    ///   one image may take (``ImagePipeline/Configuration/memoryCacheEntryCostFraction``).
    @discardableResult
    public func storeImage(_ image: ImageContainer, for request: ImageRequest, lifetime: Duration? = nil) -> Bool {
        guard let memoryCache else { return false }
        let staged = StagedImage(container: image, origin: .memory, isRevalidated: false, timings: ImageTimings())
        return memoryCache.setValue(staged, forKey: ImagePipeline.ImageKey(request), cost: image.cost, timeToLive: lifetime ?? request.cacheLifetime)
    }

    /// Forgets the memory cache's image for `request`.
    ///
    /// - Parameter request: the image to forget: its source, thumbnail size and processors. Other
    ///   thumbnails and processings of the same source stay.
    public func removeImage(for request: ImageRequest) {
        _ = memoryCache?.removeValue(forKey: ImagePipeline.ImageKey(request))
    }

    /// The data the disk cache holds for `request`'s source (written or still waiting to be),
    /// fresh or not; `nil` without a disk cache or an entry.
    ///
    /// - Parameter request: the source whose data is wanted (its URL request or identifier, and its
    ///   cache key); its thumbnail and processors play no part.
    /// - Returns: the encoded bytes, or `nil` without a disk cache or an entry, and once the pipeline is
    ///   shut down (``ImagePipeline/shutdown()``).
    public func data(for request: ImageRequest) -> Data? {
        dataCacheWriter?.entry(forKey: request.dataKey)?.data
    }

    /// Stores `data` in the disk cache as the data of `request`'s source, in the background,
    /// fresh for `lifetime`: a later load answers it without the network while it is fresh.
    ///
    /// - Parameters:
    ///   - data: the encoded image.
    ///   - request: the request whose source it is.
    ///   - lifetime: how long it stays fresh; `nil` for the request's
    ///     ``ImageRequest/cacheLifetime``, else ``ImagePipeline/Configuration/defaultTimeToLive``.
    public func storeData(_ data: Data, for request: ImageRequest, lifetime: Duration? = nil) {
        guard let dataCacheWriter else { return }
        let seconds = (lifetime ?? request.cacheLifetime).map(\.timeInterval) ?? configuration.defaultTimeToLive
        dataCacheWriter.store(data, forKey: request.dataKey, expiry: DiskCacheExpiry(expiresAt: seconds.map { configuration.now().addingTimeInterval($0) }))
    }

    /// Forgets the disk cache's data for `request`'s source, and its processed image stored on disk.
    ///
    /// - Parameter request: the source whose data to forget (data every thumbnail and processing of it
    ///   shares); of the processed images stored on disk, only this request's is forgotten.
    public func removeData(for request: ImageRequest) {
        guard let dataCacheWriter else { return }
        dataCacheWriter.remove(forKey: request.dataKey)
        dataCacheWriter.remove(forKey: ImagePipeline.ImageKey(request).diskKey)
    }

    /// Evicts the least recently used images until the memory cache costs at most `cost` bytes
    /// of pixels: for an app that knows it is short of memory. The pipeline does the same by
    /// itself under the process's memory pressure (``ImagePipeline/Configuration/memoryPressureTrimming``).
    ///
    /// - Parameter cost: the bytes of pixels to keep at most; `0` empties the memory cache, and a
    ///   negative value counts as `0`.
    public func trim(to cost: Int) {
        memoryCache?.trim(toCost: cost)
    }

    /// What the memory cache holds now: its images and their cost in bytes of pixels.
    public var memoryUsage: (count: Int, cost: Int) {
        guard let memoryCache else { return (0, 0) }
        let statistics = memoryCache.statistics
        return (statistics.count, statistics.totalCost)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    var timeInterval: TimeInterval {
        let (whole, fraction) = components
        return TimeInterval(whole) + TimeInterval(fraction) / 1e18
    }
}

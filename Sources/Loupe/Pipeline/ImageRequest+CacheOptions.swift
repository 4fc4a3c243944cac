extension ImageRequest {
    /// The caches a request leaves alone, reading or writing, on top of its ``CachePolicy``:
    /// a one-off image that should not push others out of memory, a private image never written
    /// to disk, a check that bypasses what this process remembers.
    ///
    /// ```swift
    /// var request = ImageRequest(url: url)
    /// request.cacheOptions = [.skipMemoryCacheWrite, .skipDataCacheWrite]   // leaves no trace
    /// ```
    public struct CacheOptions: OptionSet, Sendable, Hashable {
        /// Not answered from the memory cache (it is still kept there unless ``skipMemoryCacheWrite``).
        public static let skipMemoryCacheRead = Self(rawValue: 1 << 0)
        /// The image is returned but not kept in the memory cache.
        public static let skipMemoryCacheWrite = Self(rawValue: 1 << 1)
        /// A processed image stored on disk (``ImagePipeline/DataCachePolicy/storeAll``) is not
        /// used: the image is made again from its data.
        public static let skipProcessedImageRead = Self(rawValue: 1 << 2)
        /// The processed image is not stored on disk, whatever the data cache policy.
        public static let skipProcessedImageWrite = Self(rawValue: 1 << 3)
        /// The downloaded data in the disk cache is not used (nor revalidated): the source is
        /// loaded again.
        public static let skipDataCacheRead = Self(rawValue: 1 << 4)
        /// The downloaded data is not written to the disk cache (nor is a cached copy's
        /// freshness renewed after a `304`).
        public static let skipDataCacheWrite = Self(rawValue: 1 << 5)
        /// Reads no cache.
        public static let skipCacheReads: CacheOptions = [.skipMemoryCacheRead, .skipProcessedImageRead, .skipDataCacheRead]
        /// Writes no cache.
        public static let skipCacheWrites: CacheOptions = [.skipMemoryCacheWrite, .skipProcessedImageWrite, .skipDataCacheWrite]

        /// The options' bits.
        public let rawValue: Int

        /// Options from their bits.
        ///
        /// - Parameter rawValue: the options' bits, as `rawValue` gives them; build options from the named
        ///   ones (``skipMemoryCacheRead`` and the others) rather than from bits of your own.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// The options that change what the data stage does.
        static let dataCacheOptions: CacheOptions = [.skipDataCacheRead, .skipDataCacheWrite]
    }

    /// How a request uses the caches beyond its policy: its options and the lifetime of what
    /// it stores. Part of the stages' keys, so requests that store differently do not share a load.
    struct CacheUse: Hashable, Sendable {
        var options: CacheOptions = []
        var lifetime: Duration?

        /// The part the data stage acts on.
        var forData: CacheUse { CacheUse(options: options.intersection(.dataCacheOptions), lifetime: lifetime) }
    }
}

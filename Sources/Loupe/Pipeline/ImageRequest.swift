import Foundation
import LoupeLoading
import LoupeProcessing

/// What to load and how: the source (a URL and how to ask for it, or bytes under an
/// identifier), the size the caller needs, post-processing, priority and how to use the caches.
/// A value: build it, hand it to ``ImagePipeline``.
///
/// Two requests that differ only in priority share all their work; requests for the same data
/// with different thumbnails share the download; requests whose processors share a prefix share
/// that prefix's result.
public struct ImageRequest: Sendable {
    /// Where the data comes from: a URL request, bytes, or an async provider of bytes.
    public var source: Source {
        get { storage.source }
        set { update { $0.source = newValue } }
    }
    /// The `http`, `https`, `file` or `data` URL loaded; `nil` for bytes under an identifier.
    public var url: URL? {
        if case .url(let request) = storage.source { return request.url }
        return nil
    }
    /// The names of request headers that do not change the response (`User-Agent`, a tracing
    /// header), any case: left out of the cache key. Every other header of the URL request is
    /// part of the key, so two requests that differ in `Authorization` or `Accept` are cached
    /// and loaded apart.
    public var headersIgnoredByCache: Set<String> {
        get { storage.headersIgnoredByCache }
        set { update { $0.headersIgnoredByCache = Set(newValue.map { $0.lowercased() }) } }
    }
    /// The longest side the caller needs, in pixels: the image is decoded downscaled to at most
    /// this (JPEG straight from the DCT), never upscaled. `nil` decodes at full size.
    public var thumbnail: Int? {
        get { storage.thumbnail }
        set { update { $0.thumbnail = newValue } }
    }
    /// The most frames of an animation to keep, the rest dropped (imgproxy's
    /// `max_animation_frames`): 1, the default, decodes the first frame alone; more keeps an
    /// animation's frames, each processed like the first (``ImageContainer/laterFrames``).
    public var maximumFrames: Int {
        get { storage.maximumFrames }
        set { update { $0.maximumFrames = max(1, newValue) } }
    }
    /// Whether the image is turned upright by the orientation its file records (EXIF, HEIF):
    /// `true`, the default. `false` keeps the pixels as stored, sideways or mirrored if so
    /// (imgproxy's `auto_rotate:0`), and the image's ``ImageContainer/metadata`` then says
    /// `.up`: its size is the stored one. Part of the cache keys.
    public var appliesOrientation: Bool {
        get { storage.decoding.appliesOrientation }
        set { update { $0.decoding.appliesOrientation = newValue } }
    }
    /// Whether the file's embedded thumbnail is decoded as the image when it has one (HEIF
    /// and AVIF thumbnail items), whatever its size: imgproxy's `enforce_thumbnail`, for
    /// sources whose camera preview is enough and costs a fraction of the image. `false`, the
    /// default, uses a thumbnail item only where it is at least ``thumbnail`` large. The image's
    /// ``ImageContainer/metadata`` then gives the thumbnail's size. Part of the cache keys.
    public var usesEmbeddedThumbnail: Bool {
        get { storage.decoding.usesEmbeddedThumbnail }
        set { update { $0.decoding.usesEmbeddedThumbnail = newValue } }
    }
    /// Whether a 16-bit PNG or TIFF is decoded with its 16-bit samples kept
    /// (`Bitmap.deepSamples`), for a result written at 16 bits (`ImageEncoder.keepsDeepSamples`):
    /// `false`, the default, decodes every source to 8 bits per channel. Part of the cache keys.
    public var keepsDeepSamples: Bool {
        get { storage.decoding.keepsDeepSamples }
        set { update { $0.decoding.keepsDeepSamples = newValue } }
    }
    /// Applied in order to the decoded image; their identifiers are part of the cache keys.
    public var processors: [any ImageProcessing] {
        get { storage.processors }
        set { update { $0.processors = newValue } }
    }
    /// How urgently this request wants its image; can be changed while it runs through
    /// ``ImageTask/priority``.
    public var priority: Priority {
        get { storage.priority }
        set { update { $0.priority = newValue } }
    }
    /// How the memory and disk caches are used.
    public var cachePolicy: CachePolicy {
        get { storage.cachePolicy }
        set { update { $0.cachePolicy = newValue } }
    }
    /// The caches this request does not read or does not write (``CacheOptions``), on top of
    /// its ``cachePolicy``. Empty by default: every cache is read and written.
    public var cacheOptions: CacheOptions {
        get { storage.cacheUse.options }
        set { update { $0.cacheUse.options = newValue } }
    }
    /// How long what this request stores stays: its image in the memory cache, its processed
    /// image on disk, and at most this long fresh for its downloaded data on disk (a server's
    /// shorter freshness still holds). `nil` (the default) for the configuration's lifetimes
    /// and the server's freshness.
    public var cacheLifetime: Duration? {
        get { storage.cacheUse.lifetime }
        set { update { $0.cacheUse.lifetime = newValue.map { max(.zero, $0) } } }
    }
    /// Whether a stale copy in the disk cache is answered at once while the server is asked
    /// for a newer one in the background (an ``ImageTask`` then sends
    /// ``ImageTask/Event/updated(_:)`` if the server has new bytes, nothing on `304 Not Modified`);
    /// `nil` (the default) uses ``ImagePipeline/Configuration/staleWhileRevalidate``. How the
    /// server's `stale-while-revalidate` bounds it: ``ImageRequest/StalePolicy``. Applies with
    /// ``ImageRequest/CachePolicy/useCache`` to `http(s)` and `s3` sources.
    public var staleWhileRevalidate: StalePolicy? {
        get { storage.staleUse.whileRevalidating }
        set { update { $0.staleUse.whileRevalidating = newValue } }
    }
    /// Whether a stale copy in the disk cache is answered, with its age
    /// (``ImageResponse/staleness``), when asking the server for a newer one fails over the
    /// network (no connection, a timeout, a `5xx`) instead of throwing; `nil` (the default) uses
    /// ``ImagePipeline/Configuration/staleIfError``. How the server's `stale-if-error` bounds it:
    /// ``ImageRequest/StalePolicy``. Applies with ``ImageRequest/CachePolicy/useCache`` and
    /// ``ImageRequest/CachePolicy/revalidate``.
    public var staleIfError: StalePolicy? {
        get { storage.staleUse.ifError }
        set { update { $0.staleUse.ifError = newValue } }
    }
    /// Whether a task for this request shows a progressive JPEG before its last byte
    /// (``ImageTask/Event/preview(_:)``), and how often; `nil` (the default) uses
    /// ``ImagePipeline/Configuration/previews``. Not part of any cache key: previews never
    /// enter the caches.
    public var previews: PreviewPolicy? {
        get { storage.previews }
        set { update { $0.previews = newValue } }
    }
    /// Replaces the URL (or the identifier) as the identity of the data in caches and coalescing,
    /// e.g. a URL without its expiring signature, so that two signed URLs of one image are one
    /// entry. The request's headers and method still count beside it.
    public var cacheKey: String? {
        get { storage.cacheKey }
        set { update { $0.cacheKey = newValue } }
    }

    /// The identity of the data: ``cacheKey``, else the URL's string or the identifier, with the
    /// headers and method that change the response.
    var dataKey: String { storage.imageKey.dataKey }
    /// The processors' identifiers, in order.
    var processorIdentifiers: [String] { storage.imageKey.processorIdentifiers }
    /// The image this request asks for, as the memory cache and the stages know it.
    var imageKey: ImagePipeline.ImageKey { storage.imageKey }
    /// The first processor, when it chooses the scale the source is decoded at: only without a
    /// thumbnail (a thumbnail fixes the decode's size).
    var sourceScaling: (any SourceScaledProcessing)? { storage.sourceScaling }
    /// The stale policies as given.
    var staleUse: StaleUse { storage.staleUse }
    /// The cache options and lifetime as given.
    var cacheUse: CacheUse { storage.cacheUse }

    // One immutable object behind the value: a request is copied on every memory hit (into the
    // response), and a copy is one reference instead of one per field; the keys derived from
    // the fields — a URL's string, the processors' identifiers, the costliest parts of a hit —
    // are computed once, when a field changes, not on every lookup.
    private var storage: Storage

    private final class Storage: Sendable {
        let source: Source
        let headersIgnoredByCache: Set<String>
        let thumbnail: Int?
        let maximumFrames: Int
        let decoding: ImagePipeline.DecodeChoices
        let processors: [any ImageProcessing]
        let priority: Priority
        let cachePolicy: CachePolicy
        let cacheKey: String?
        let staleUse: StaleUse
        let cacheUse: CacheUse
        let previews: PreviewPolicy?
        let imageKey: ImagePipeline.ImageKey
        let sourceScaling: (any SourceScaledProcessing)?

        init(fields: Fields) {
            source = fields.source
            headersIgnoredByCache = fields.headersIgnoredByCache
            thumbnail = fields.thumbnail
            maximumFrames = fields.maximumFrames
            decoding = fields.decoding
            processors = fields.processors
            priority = fields.priority
            cachePolicy = fields.cachePolicy
            cacheKey = fields.cacheKey
            staleUse = fields.staleUse
            cacheUse = fields.cacheUse
            previews = fields.previews
            sourceScaling = fields.thumbnail == nil ? fields.processors.first as? any SourceScaledProcessing : nil
            imageKey = ImagePipeline.ImageKey(
                dataKey: ImagePipeline.ImageKey.dataKey(
                    of: fields.source, cacheKey: fields.cacheKey, ignoringHeaders: fields.headersIgnoredByCache),
                thumbnail: fields.thumbnail, maximumFrames: fields.maximumFrames, decoding: fields.decoding,
                processorIdentifiers: fields.processors.map(\.identifier), decodeScaling: sourceScaling?.identifier)
        }

        var fields: Fields {
            Fields(source: source, headersIgnoredByCache: headersIgnoredByCache, thumbnail: thumbnail, maximumFrames: maximumFrames,
                   decoding: decoding, processors: processors, priority: priority,
                   cachePolicy: cachePolicy, cacheKey: cacheKey, staleUse: staleUse, cacheUse: cacheUse, previews: previews)
        }
    }

    private struct Fields {
        var source: Source
        var headersIgnoredByCache: Set<String> = []
        var thumbnail: Int?
        var maximumFrames = 1
        var decoding = ImagePipeline.DecodeChoices()
        var processors: [any ImageProcessing]
        var priority: Priority
        var cachePolicy: CachePolicy
        var cacheKey: String?
        var staleUse = StaleUse()
        var cacheUse = CacheUse()
        var previews: PreviewPolicy?
    }

    private mutating func update(_ change: (inout Fields) -> Void) {
        var fields = storage.fields
        change(&fields)
        storage = Storage(fields: fields)
    }

    /// A request for `url`, loaded with `GET` and no headers of its own.
    ///
    /// - Parameters:
    ///   - url: an `http`, `https`, `file` or `data` URL.
    ///   - thumbnail: the longest side needed, in pixels; `nil` for full size.
    ///   - processors: applied in order to the decoded image.
    ///   - priority: how urgently the image is wanted.
    ///   - cachePolicy: how the memory and disk caches are used.
    ///   - cacheKey: the data's identity in caches and coalescing instead of the URL.
    public init(
        url: URL,
        thumbnail: Int? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache,
        cacheKey: String? = nil
    ) {
        self.init(source: .url(DataRequest(url: url)), thumbnail: thumbnail, processors: processors, priority: priority,
                  cachePolicy: cachePolicy, cacheKey: cacheKey)
    }

    /// A request loading `urlRequest`: its method, headers (an `Authorization`, say) and timeout
    /// go with every network load of it. Its headers are part of the cache key but for those
    /// named in `headersIgnoredByCache`.
    ///
    /// - Parameters:
    ///   - urlRequest: the URL and how to ask for it.
    ///   - headersIgnoredByCache: names of headers that do not change the response (any case).
    ///   - thumbnail: the longest side needed, in pixels; `nil` for full size.
    ///   - processors: applied in order to the decoded image.
    ///   - priority: how urgently the image is wanted.
    ///   - cachePolicy: how the memory and disk caches are used.
    ///   - cacheKey: the data's identity in caches and coalescing instead of the URL.
    public init(
        urlRequest: DataRequest,
        headersIgnoredByCache: Set<String> = [],
        thumbnail: Int? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache,
        cacheKey: String? = nil
    ) {
        self.init(source: .url(urlRequest), headersIgnoredByCache: headersIgnoredByCache, thumbnail: thumbnail, processors: processors,
                  priority: priority, cachePolicy: cachePolicy, cacheKey: cacheKey)
    }

    /// A request for `data`, an encoded image the caller holds, known as `id` to the caches and
    /// to coalescing: it is decoded, processed and kept in the memory cache like a download.
    ///
    /// - Parameters:
    ///   - id: the data's identity in caches and coalescing (requests with one `id` are one image).
    ///   - data: the encoded image.
    ///   - thumbnail: the longest side needed, in pixels; `nil` for full size.
    ///   - processors: applied in order to the decoded image.
    ///   - priority: how urgently the image is wanted.
    ///   - cachePolicy: how the memory cache and stored processed images are used.
    public init(
        id: String,
        data: Data,
        thumbnail: Int? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache
    ) {
        self.init(source: .data(id: id, data), thumbnail: thumbnail, processors: processors, priority: priority,
                  cachePolicy: cachePolicy, cacheKey: nil)
    }

    /// A request for the encoded image `provider` makes (read from a database, rendered),
    /// known as `id`: concurrent requests with one `id` share one call, and the result is
    /// decoded, processed and kept in the memory cache like a download.
    ///
    /// - Parameters:
    ///   - id: the data's identity in caches and coalescing (requests with one `id` are one image).
    ///   - thumbnail: the longest side needed, in pixels; `nil` for full size.
    ///   - processors: applied in order to the decoded image.
    ///   - priority: how urgently the image is wanted.
    ///   - cachePolicy: how the memory cache and stored processed images are used.
    ///   - provider: makes the encoded image; cancelled when every request waiting for it is. What
    ///     it throws fails the requests as ``ImagePipelineError/dataLoadingFailed(_:)``.
    public init(
        id: String,
        thumbnail: Int? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache,
        provider: @escaping @Sendable () async throws -> Data
    ) {
        self.init(source: .provider(id: id, provider), thumbnail: thumbnail, processors: processors, priority: priority,
                  cachePolicy: cachePolicy, cacheKey: nil)
    }

    private init(source: Source, headersIgnoredByCache: Set<String> = [], thumbnail: Int?, processors: [any ImageProcessing],
                 priority: Priority, cachePolicy: CachePolicy, cacheKey: String?) {
        storage = Storage(fields: Fields(
            source: source, headersIgnoredByCache: Set(headersIgnoredByCache.map { $0.lowercased() }), thumbnail: thumbnail,
            processors: processors, priority: priority, cachePolicy: cachePolicy, cacheKey: cacheKey))
    }

    /// A request's urgency; the network and decoding queues serve higher priorities first.
    public enum Priority: Int, Sendable, Comparable, CaseIterable {
        case veryLow, low, normal, high, veryHigh

        public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

        /// The Swift task priority the work runs at.
        var taskPriority: TaskPriority {
            switch self {
            case .veryLow: .background
            case .low: .low
            case .normal: .medium
            case .high: .high
            // Swift's highest job priority (user-interactive); TaskPriority has no name for it.
            case .veryHigh: TaskPriority(rawValue: 0x21)
            }
        }
    }

    /// How a request uses the caches.
    public enum CachePolicy: Sendable, Hashable {
        /// Memory, then disk while fresh (revalidating a stale copy with the server), then network.
        case useCache
        /// Ignores both caches and loads from the origin; the result still refreshes them.
        case reloadIgnoringCaches
        /// Returns only what the caches hold, even if stale; never touches the network.
        case returnCacheDataDontLoad
        /// Asks the server whether the disk copy is still current (a conditional request) even
        /// when it is fresh; a `304 Not Modified` serves it without downloading it again.
        case revalidate
    }
}

import Foundation
import LoupeProcessing

/// What to load and how: the URL, the size the caller needs, post-processing, priority and how
/// to use the caches. A value: build it, hand it to ``ImagePipeline``.
///
/// Two requests that differ only in priority share all their work; requests for the same data
/// with different thumbnails share the download; requests whose processors share a prefix share
/// that prefix's result.
public struct ImageRequest: Sendable {
    /// An `http`, `https`, `file` or `data` URL.
    public var url: URL {
        didSet { dataKey = cacheKey ?? url.absoluteString }
    }
    /// The longest side the caller needs, in pixels: the image is decoded downscaled to at most
    /// this (JPEG straight from the DCT), never upscaled. `nil` decodes at full size.
    public var thumbnail: Int?
    /// Applied in order to the decoded image; their identifiers are part of the cache keys.
    public var processors: [any ImageProcessing] {
        didSet { processorIdentifiers = processors.map(\.identifier) }
    }
    /// How urgently this request wants its image; can be changed while it runs through
    /// ``ImageTask/priority``.
    public var priority: Priority
    /// How the memory and disk caches are used.
    public var cachePolicy: CachePolicy
    /// Replaces the URL as the identity of the data in caches and coalescing, e.g. a URL without
    /// its expiring signature, so that two signed URLs of one image are one entry.
    public var cacheKey: String? {
        didSet { dataKey = cacheKey ?? url.absoluteString }
    }

    // Kept up to date by the properties above, so that a memory hit does not rebuild them:
    // a URL's string and the processors' identifiers are the costliest parts of a hit.
    /// The identity of the data: ``cacheKey``, else the URL's string.
    private(set) var dataKey: String
    /// The processors' identifiers, in order.
    private(set) var processorIdentifiers: [String]

    /// A request for `url`.
    public init(
        url: URL,
        thumbnail: Int? = nil,
        processors: [any ImageProcessing] = [],
        priority: Priority = .normal,
        cachePolicy: CachePolicy = .useCache,
        cacheKey: String? = nil
    ) {
        self.url = url
        self.thumbnail = thumbnail
        self.processors = processors
        self.priority = priority
        self.cachePolicy = cachePolicy
        self.cacheKey = cacheKey
        self.dataKey = cacheKey ?? url.absoluteString
        self.processorIdentifiers = processors.map(\.identifier)
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

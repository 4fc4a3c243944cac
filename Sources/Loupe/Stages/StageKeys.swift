import Foundation
import LoupeProcessing

extension ImagePipeline {
    /// Identifies an image in the memory cache: the data's identity, the thumbnail size and
    /// the processors. The cache policy is not part of it: every policy reads and refreshes the
    /// same entries.
    struct ImageKey: Hashable, Sendable, CustomStringConvertible {
        /// The request's custom cache key, else its URL.
        let dataKey: String
        let thumbnail: Int?
        /// The most frames of an animation kept (``ImageRequest/maximumFrames``); 1 for the first alone.
        let maximumFrames: Int
        let processorIdentifiers: [String]
        /// The identifier of the first processor when it chose the decode's scale
        /// (``SourceScaledProcessing``): a decode made for it is not the full-size one.
        let decodeScaling: String?
        /// Computed once, with the key: every memory hit hashes its key, and hashing a URL with
        /// SipHash was most of a lookup. A request keeps its key, so a hit hashes one word.
        private let hash: Int

        /// The image `request` asks for (built when the request's fields were set).
        init(_ request: ImageRequest) {
            self = request.imageKey
        }

        init(dataKey: String, thumbnail: Int?, maximumFrames: Int = 1, processorIdentifiers: [String], decodeScaling: String? = nil) {
            self.dataKey = dataKey
            self.thumbnail = thumbnail
            self.maximumFrames = maximumFrames
            self.processorIdentifiers = processorIdentifiers
            self.decodeScaling = decodeScaling
            var hasher = Hasher()
            hasher.combine(dataKey)
            hasher.combine(thumbnail)
            hasher.combine(maximumFrames)
            hasher.combine(processorIdentifiers)
            hasher.combine(decodeScaling)
            hash = hasher.finalize()
        }

        static func == (lhs: ImageKey, rhs: ImageKey) -> Bool {
            lhs.hash == rhs.hash && lhs.dataKey == rhs.dataKey && lhs.thumbnail == rhs.thumbnail
                && lhs.maximumFrames == rhs.maximumFrames && lhs.processorIdentifiers == rhs.processorIdentifiers
                && lhs.decodeScaling == rhs.decodeScaling
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// The same image with other processors.
        func with(processorIdentifiers: [String]) -> ImageKey {
            ImageKey(dataKey: dataKey, thumbnail: thumbnail, maximumFrames: maximumFrames, processorIdentifiers: processorIdentifiers,
                     decodeScaling: decodeScaling)
        }

        /// The key of the processed image stored on disk (``DataCachePolicy/storeAll``).
        var diskKey: String {
            let thumbnailPart = thumbnail.map { "\($0)" } ?? "full"
            // A first-frame key (every still image's) keeps the form it had before animations.
            let framesPart = maximumFrames == 1 ? [] : ["loupe.frames(\(maximumFrames))"]
            return ([dataKey, "loupe.thumbnail(\(thumbnailPart))"] + framesPart + processorIdentifiers).joined(separator: "\u{1F}")
        }

        /// The key as logged: data key, thumbnail and processors separated by " | ", and a
        /// decode scaled for the first processor marked as such.
        var description: String {
            let text = diskKey.replacingOccurrences(of: "\u{1F}", with: " | ")
            guard processorIdentifiers.isEmpty, decodeScaling != nil else { return text }
            return text + " | scaled for the first processor"
        }
    }

    /// Identifies work in one stage: what it produces and under which cache policy (a reload
    /// must not join a load that may be served from disk). It carries what the work needs —
    /// the URL and the processors — but compares by identity only, so two requests with the
    /// same custom cache key share one load whatever their URLs.
    struct StageKey: Hashable, Sendable, CustomStringConvertible {
        let image: ImageKey
        let cachePolicy: ImageRequest.CachePolicy
        let url: URL
        let processors: [any ImageProcessing]
        /// The request's first processor when it chooses the decode's scale (its identifier is
        /// the image key's `decodeScaling`); kept by every key derived for the request's stages
        /// but the data's.
        let sourceScaling: (any SourceScaledProcessing)?

        init(_ request: ImageRequest) {
            image = ImageKey(request)
            cachePolicy = request.cachePolicy
            url = request.url
            processors = request.processors
            sourceScaling = request.sourceScaling
        }

        private init(image: ImageKey, cachePolicy: ImageRequest.CachePolicy, url: URL, processors: [any ImageProcessing],
                     sourceScaling: (any SourceScaledProcessing)?) {
            self.image = image
            self.cachePolicy = cachePolicy
            self.url = url
            self.processors = processors
            self.sourceScaling = sourceScaling
        }

        /// The same image without its last processor: the input of the last processor.
        var withoutLastProcessor: StageKey {
            StageKey(image: image.with(processorIdentifiers: image.processorIdentifiers.dropLast()), cachePolicy: cachePolicy,
                     url: url, processors: processors.dropLast(), sourceScaling: sourceScaling)
        }

        /// The decoded image before any processor.
        var decoded: StageKey {
            StageKey(image: image.with(processorIdentifiers: []), cachePolicy: cachePolicy, url: url, processors: [],
                     sourceScaling: sourceScaling)
        }

        /// The data: no thumbnail, no processors.
        var data: StageKey {
            let image = ImageKey(dataKey: image.dataKey, thumbnail: nil, processorIdentifiers: [])
            return StageKey(image: image, cachePolicy: cachePolicy, url: url, processors: [], sourceScaling: nil)
        }

        static func == (lhs: StageKey, rhs: StageKey) -> Bool {
            lhs.image == rhs.image && lhs.cachePolicy == rhs.cachePolicy
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(image)
            hasher.combine(cachePolicy)
        }

        var description: String { image.description }
    }
}

/// What the stages key their loads by (``ImagePipeline/StageKey``).
typealias StageKey = ImagePipeline.StageKey

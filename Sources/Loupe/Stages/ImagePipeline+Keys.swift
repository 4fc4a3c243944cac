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
        /// Computed once, with the key: every memory hit hashes its key, and hashing a URL with
        /// SipHash was most of a lookup. A request keeps its key, so a hit hashes one word.
        private let hash: Int

        /// The image `request` asks for (built when the request's fields were set).
        init(_ request: ImageRequest) {
            self = request.imageKey
        }

        init(dataKey: String, thumbnail: Int?, maximumFrames: Int = 1, processorIdentifiers: [String]) {
            self.dataKey = dataKey
            self.thumbnail = thumbnail
            self.maximumFrames = maximumFrames
            self.processorIdentifiers = processorIdentifiers
            var hasher = Hasher()
            hasher.combine(dataKey)
            hasher.combine(thumbnail)
            hasher.combine(maximumFrames)
            hasher.combine(processorIdentifiers)
            hash = hasher.finalize()
        }

        static func == (lhs: ImageKey, rhs: ImageKey) -> Bool {
            lhs.hash == rhs.hash && lhs.dataKey == rhs.dataKey && lhs.thumbnail == rhs.thumbnail
                && lhs.maximumFrames == rhs.maximumFrames && lhs.processorIdentifiers == rhs.processorIdentifiers
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// The same image with other processors.
        func with(processorIdentifiers: [String]) -> ImageKey {
            ImageKey(dataKey: dataKey, thumbnail: thumbnail, maximumFrames: maximumFrames, processorIdentifiers: processorIdentifiers)
        }

        /// The key of the processed image stored on disk (``DataCachePolicy/storeAll``).
        var diskKey: String {
            let thumbnailPart = thumbnail.map { "\($0)" } ?? "full"
            // A first-frame key (every still image's) keeps the form it had before animations.
            let framesPart = maximumFrames == 1 ? [] : ["loupe.frames(\(maximumFrames))"]
            return ([dataKey, "loupe.thumbnail(\(thumbnailPart))"] + framesPart + processorIdentifiers).joined(separator: "\u{1F}")
        }

        /// The key as logged: data key, thumbnail and processors separated by " | ".
        var description: String { diskKey.replacingOccurrences(of: "\u{1F}", with: " | ") }
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

        init(_ request: ImageRequest) {
            image = ImageKey(request)
            cachePolicy = request.cachePolicy
            url = request.url
            processors = request.processors
        }

        private init(image: ImageKey, cachePolicy: ImageRequest.CachePolicy, url: URL, processors: [any ImageProcessing]) {
            self.image = image
            self.cachePolicy = cachePolicy
            self.url = url
            self.processors = processors
        }

        /// The same image without its last processor: the input of the last processor.
        var withoutLastProcessor: StageKey {
            StageKey(image: image.with(processorIdentifiers: image.processorIdentifiers.dropLast()), cachePolicy: cachePolicy,
                     url: url, processors: processors.dropLast())
        }

        /// The decoded image before any processor.
        var decoded: StageKey {
            StageKey(image: image.with(processorIdentifiers: []), cachePolicy: cachePolicy, url: url, processors: [])
        }

        /// The data: no thumbnail, no processors.
        var data: StageKey {
            let image = ImageKey(dataKey: image.dataKey, thumbnail: nil, processorIdentifiers: [])
            return StageKey(image: image, cachePolicy: cachePolicy, url: url, processors: [])
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

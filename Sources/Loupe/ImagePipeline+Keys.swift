import Foundation
import LoupeProcessing

extension ImagePipeline {
    /// Identifies an image in the memory cache: the data's identity, the thumbnail size and
    /// the processors. The cache policy is not part of it: every policy reads and refreshes the
    /// same entries.
    struct ImageKey: Hashable, Sendable, CustomStringConvertible {
        /// The request's custom cache key, else its URL.
        var dataKey: String
        var thumbnail: Int?
        var processorIdentifiers: [String]

        /// The image `request` asks for.
        init(_ request: ImageRequest) {
            dataKey = request.dataKey
            thumbnail = request.thumbnail
            processorIdentifiers = request.processorIdentifiers
        }

        init(dataKey: String, thumbnail: Int?, processorIdentifiers: [String]) {
            self.dataKey = dataKey
            self.thumbnail = thumbnail
            self.processorIdentifiers = processorIdentifiers
        }

        /// The key of the processed image stored on disk (``DataCachePolicy/storeAll``).
        var diskKey: String {
            let thumbnailPart = thumbnail.map { "\($0)" } ?? "full"
            return ([dataKey, "loupe.thumbnail(\(thumbnailPart))"] + processorIdentifiers).joined(separator: "\u{1F}")
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
            var image = image
            image.processorIdentifiers.removeLast()
            return StageKey(image: image, cachePolicy: cachePolicy, url: url, processors: processors.dropLast())
        }

        /// The decoded image before any processor.
        var decoded: StageKey {
            var image = image
            image.processorIdentifiers = []
            return StageKey(image: image, cachePolicy: cachePolicy, url: url, processors: [])
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

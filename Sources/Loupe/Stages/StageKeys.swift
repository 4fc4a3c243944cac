import Foundation
import LoupeLoading
import LoupeProcessing

extension ImagePipeline {
    /// How a request has its source decoded apart from the size: choices that give other
    /// pixels from the same data, so they are part of the image's keys.
    package struct DecodeChoices: Hashable, Sendable {
        /// Turned upright by the file's orientation (``ImageRequest/appliesOrientation``).
        package var appliesOrientation = true
        /// The file's embedded thumbnail decoded as the image (``ImageRequest/usesEmbeddedThumbnail``).
        package var usesEmbeddedThumbnail = false
        /// 16-bit samples kept by the decode (``ImageRequest/keepsDeepSamples``).
        package var keepsDeepSamples = false

        package init() {}

        /// The parts of the processed image's disk key: none for the defaults, so every
        /// request that makes no choice keeps the key it had before choices existed.
        var keyParts: [String] {
            (appliesOrientation ? [] : ["loupe.stored-orientation"]) + (keepsDeepSamples ? ["loupe.deep-samples"] : [])
                + (usesEmbeddedThumbnail ? ["loupe.embedded-thumbnail"] : [])
        }
    }

    /// Identifies an image in the memory cache: the data's identity, the thumbnail size and
    /// the processors. The cache policy is not part of it: every policy reads and refreshes the
    /// same entries.
    struct ImageKey: Hashable, Sendable, CustomStringConvertible {
        /// The request's custom cache key, else its URL or identifier; with the request's
        /// method and headers when they change the response (``dataKey(of:cacheKey:ignoringHeaders:)``).
        let dataKey: String
        let thumbnail: Int?
        /// The most frames of an animation kept (``ImageRequest/maximumFrames``); 1 for the first alone.
        let maximumFrames: Int
        /// How the source is decoded apart from its size.
        let decoding: DecodeChoices
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

        init(dataKey: String, thumbnail: Int?, maximumFrames: Int = 1, decoding: DecodeChoices = DecodeChoices(), processorIdentifiers: [String],
             decodeScaling: String? = nil) {
            self.dataKey = dataKey
            self.thumbnail = thumbnail
            self.maximumFrames = maximumFrames
            self.decoding = decoding
            self.processorIdentifiers = processorIdentifiers
            self.decodeScaling = decodeScaling
            var hasher = Hasher()
            hasher.combine(dataKey)
            hasher.combine(thumbnail)
            hasher.combine(maximumFrames)
            hasher.combine(decoding)
            hasher.combine(processorIdentifiers)
            hasher.combine(decodeScaling)
            hash = hasher.finalize()
        }

        static func == (lhs: ImageKey, rhs: ImageKey) -> Bool {
            lhs.hash == rhs.hash && lhs.dataKey == rhs.dataKey && lhs.thumbnail == rhs.thumbnail
                && lhs.maximumFrames == rhs.maximumFrames && lhs.decoding == rhs.decoding
                && lhs.processorIdentifiers == rhs.processorIdentifiers
                && lhs.decodeScaling == rhs.decodeScaling
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }

        /// The same image with other processors.
        func with(processorIdentifiers: [String]) -> ImageKey {
            ImageKey(dataKey: dataKey, thumbnail: thumbnail, maximumFrames: maximumFrames, decoding: decoding,
                     processorIdentifiers: processorIdentifiers, decodeScaling: decodeScaling)
        }

        /// The identity of a source's data, in the memory cache, the disk cache and coalescing:
        /// `cacheKey`, else the URL's string or the marked identifier; for a URL, followed by a digest of
        /// its method (unless `GET`) and of its headers not in `ignoredHeaders` (lower-cased
        /// names), so requests that may get different answers are never one entry. A SHA-256
        /// digest, not the text: keys are logged and written to disk, and tokens must not be, nor
        /// a caller's line breaks.
        static func dataKey(of source: ImageRequest.Source, cacheKey: String?, ignoringHeaders ignoredHeaders: Set<String>) -> String {
            switch source {
            case .data(let id, _), .provider(let id, _):
                // Apart from every URL's key (no URL holds the separator): an identifier that
                // spells a URL cannot stand for that URL's image.
                return cacheKey ?? "loupe.id\u{1F}" + id
            case .url(let request):
                let identity = cacheKey ?? request.url.absoluteString
                // The common case, a plain GET, without the work of the digest's inputs.
                if request.headers.isEmpty, request.method == "GET" { return identity }
                let method = request.method.uppercased()
                let headers = request.headers
                    .map { (name: $0.key.lowercased(), value: $0.value) }
                    .filter { !ignoredHeaders.contains($0.name) }
                    .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
                guard method != "GET" || !headers.isEmpty else { return identity }
                // Each string with its length, so no two requests make one text.
                let fields = [method] + headers.flatMap { [$0.name, $0.value] }
                let text = fields.map { "\($0.utf8.count):\($0)" }.joined()
                let digest = Hex.string(Digest.sha256(utf8: text))
                return identity + "\u{1F}loupe.request(\(digest))"
            }
        }

        /// The key of the processed image stored on disk (``DataCachePolicy/storeAll``).
        var diskKey: String {
            let thumbnailPart = thumbnail.map { "\($0)" } ?? "full"
            // A first-frame key (every still image's) keeps the form it had before animations.
            let framesPart = maximumFrames == 1 ? [] : ["loupe.frames(\(maximumFrames))"]
            return ([dataKey, "loupe.thumbnail(\(thumbnailPart))"] + framesPart + decoding.keyParts + processorIdentifiers).joined(separator: "\u{1F}")
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
    /// the source and the processors — but compares by identity only, so two requests with the
    /// same custom cache key share one load whatever their URLs.
    struct StageKey: Hashable, Sendable, CustomStringConvertible {
        let image: ImageKey
        let cachePolicy: ImageRequest.CachePolicy
        /// Whether a stale disk copy may answer, as the request said.
        let staleUse: ImageRequest.StaleUse
        /// The caches the request skips and the lifetime of what it stores (the data's part
        /// alone in the data key): requests that store differently do not share a load.
        let cacheUse: ImageRequest.CacheUse
        let source: ImageRequest.Source
        let processors: [any ImageProcessing]
        /// The request's first processor when it chooses the decode's scale (its identifier is
        /// the image key's `decodeScaling`); kept by every key derived for the request's stages
        /// but the data's.
        let sourceScaling: (any SourceScaledProcessing)?

        init(_ request: ImageRequest) {
            image = ImageKey(request)
            cachePolicy = request.cachePolicy
            staleUse = request.staleUse
            cacheUse = request.cacheUse
            source = request.source
            processors = request.processors
            sourceScaling = request.sourceScaling
        }

        private init(image: ImageKey, cachePolicy: ImageRequest.CachePolicy, staleUse: ImageRequest.StaleUse, cacheUse: ImageRequest.CacheUse,
                     source: ImageRequest.Source, processors: [any ImageProcessing], sourceScaling: (any SourceScaledProcessing)?) {
            self.image = image
            self.cachePolicy = cachePolicy
            self.staleUse = staleUse
            self.cacheUse = cacheUse
            self.source = source
            self.processors = processors
            self.sourceScaling = sourceScaling
        }

        /// The same image without its last processor: the input of the last processor.
        var withoutLastProcessor: StageKey {
            StageKey(image: image.with(processorIdentifiers: image.processorIdentifiers.dropLast()), cachePolicy: cachePolicy,
                     staleUse: staleUse, cacheUse: cacheUse, source: source, processors: processors.dropLast(), sourceScaling: sourceScaling)
        }

        /// The decoded image before any processor.
        var decoded: StageKey {
            StageKey(image: image.with(processorIdentifiers: []), cachePolicy: cachePolicy, staleUse: staleUse, cacheUse: cacheUse, source: source,
                     processors: [], sourceScaling: sourceScaling)
        }

        /// The data: no thumbnail, no processors.
        var data: StageKey {
            let image = ImageKey(dataKey: image.dataKey, thumbnail: nil, processorIdentifiers: [])
            return StageKey(image: image, cachePolicy: cachePolicy, staleUse: staleUse, cacheUse: cacheUse.forData, source: source, processors: [],
                            sourceScaling: nil)
        }

        static func == (lhs: StageKey, rhs: StageKey) -> Bool {
            lhs.image == rhs.image && lhs.cachePolicy == rhs.cachePolicy && lhs.staleUse == rhs.staleUse && lhs.cacheUse == rhs.cacheUse
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(image)
            hasher.combine(cachePolicy)
            hasher.combine(staleUse)
            hasher.combine(cacheUse)
        }

        var description: String { image.description }
    }
}

/// What the stages key their loads by (``ImagePipeline/StageKey``).
typealias StageKey = ImagePipeline.StageKey

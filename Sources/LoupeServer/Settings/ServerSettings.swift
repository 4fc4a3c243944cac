import Foundation
import LoupeCodecs
import LoupeLoading

/// Everything `loupe serve` is configured with. Built from flags and `LOUPE_*` environment
/// variables by ``init(flags:environment:)`` (a flag wins), or directly in code.
public struct ServerSettings: Sendable {
    /// Address to listen on.
    public var host = "127.0.0.1"
    /// Port to listen on (0: any free port).
    public var port = 8080
    /// How many bytes of the HMAC a URL's signature holds (imgproxy's `IMGPROXY_SIGNATURE_SIZE`):
    /// 32, all of them, unless a deployment shortened its URLs.
    public var signatureSize = 32
    /// Signing key/salt pairs; empty for unsigned operation.
    public var keys: [URLSigner.KeyPair] = []
    /// Whether `insecure` / `_` URLs are served when no key is set.
    public var allowsUnsigned = false
    /// Sources allowed (parsed prefixes; empty allows every http(s) URL).
    public var sources = SourcePolicy.any
    /// The folder `local:///path` sources are read from (imgproxy's local file system root);
    /// `nil` refuses them. Nothing outside it is read (`RootedFileSystem`, in LoupeLoading).
    public var localRoot: RootedFileSystem?
    /// Folder of the disk caches (source data and results); `nil` for memory only.
    public var cacheDirectory: URL?
    /// Disk cache limit in bytes, for source data and results each.
    public var diskLimit = 1 << 30
    /// Memory cache limit in bytes of decoded pixels. Small by default: results are kept
    /// encoded in the result cache, and decoded pixels of distinct sources kept here would be
    /// most of the server's memory (a 256 MB cache took its peak RSS from 68 to 387 MB in
    /// Scripts/bench/bench-serve.sh) for few hits.
    public var memoryLimit = 32 << 20
    /// Memory limit in bytes of encoded results kept in front of the disk result cache (0:
    /// none). A repeated URL is then answered from memory, without a file read; results are
    /// small (a 512 px JPEG is tens of KB), so the default holds several hundred. 64 MB took
    /// the peak RSS at 64 connections in Scripts/bench/bench-serve.sh from 152–161 MB to 244–290 MB.
    public var resultMemoryLimit = 32 << 20
    /// Largest source accepted, in bytes.
    public var maximumSourceBytes = 50 << 20
    /// Largest source accepted, in pixels (checked from the header, before decoding).
    public var maximumSourcePixels = 50_000_000
    /// Largest side of a result, in pixels.
    public var maximumResultDimension = 8192
    /// The most frames of an animated source kept, the rest dropped (imgproxy's
    /// `IMGPROXY_MAX_ANIMATION_FRAMES`; 1 answers an animation's first frame, imgproxy's
    /// default). Loupe's default keeps animations animated, as thumbor does and as people expect
    /// of a GIF; the frames kept times the canvas count against ``maximumSourcePixels``, from
    /// the header, so the default bounds the work as the pixel limit does.
    public var maximumAnimationFrames = 100
    /// The most one request may cost, in millions of pixel operations (about a second of one
    /// core per thousand), estimated from the source's header and the URL before a pixel is
    /// decoded (`RequestCostLimit`); a request over it is refused with 422 naming the option
    /// that weighs most. The default lets a 50-megapixel photo through at full size as JPEG or
    /// WebP and refuses blurs, sharpens and lossless or AVIF encodes of results that large.
    public var maximumRequestCost = 8_000
    /// Decodes and processing at once.
    public var workers = ProcessInfo.processInfo.activeProcessorCount
    /// Requests that may wait for a worker; beyond, 429.
    public var queueLength = 64
    /// Bytes of memory for downloaded sources waiting to be decoded and for decoded pixels
    /// until processed; past it, downloads wait (in arrival order) for earlier requests to
    /// release theirs (decodes already on a worker take theirs regardless). The default holds
    /// four 8 MB camera JPEGs waiting, or their decodes shrunk on load; it keeps a 2-core
    /// instance under 256 MB at 64 connections of 12-megapixel photos (BENCHMARKS.md).
    public var memoryBudget = 32 << 20
    /// Limit of one source download.
    public var downloadTimeout = Duration.seconds(10)
    /// Limit of one request, from arrival to the response.
    public var requestTimeout = Duration.seconds(30)
    /// How long the server keeps accepting requests after SIGTERM while `/health` already
    /// answers 503, so a load balancer's health checks take it out of rotation before it stops
    /// listening; requests in flight then get the grace period to finish.
    public var drainDelay = Duration.zero
    /// Whether a URL without a format gets WebP when `Accept` lists `image/webp` (imgproxy's
    /// `IMGPROXY_AUTO_WEBP`). On by default, where imgproxy's is off: every browser lists WebP,
    /// and its results are smaller than JPEG's and PNG's for a small part of AVIF's CPU.
    public var negotiatesWebP = true
    /// Whether a URL without a format gets AVIF when `Accept` lists `image/avif`, over WebP.
    /// Off by default, as imgproxy's `IMGPROXY_AUTO_AVIF`: AVIF encoding costs several times a
    /// WebP's CPU, and nearly every browser lists AVIF, so turning it on changes the cost of
    /// almost every cold request.
    public var negotiatesAVIF = false
    /// Whether a URL without a format gets JPEG XL when `Accept` lists `image/jxl`, over AVIF
    /// and WebP (imgproxy's `IMGPROXY_AUTO_JXL`, off by default).
    public var negotiatesJXL = false
    /// Whether WebP replaces even a format the URL names when `Accept` lists `image/webp`
    /// (imgproxy's `IMGPROXY_ENFORCE_WEBP`, off by default); it negotiates WebP too.
    public var enforcesWebP = false
    /// Whether AVIF replaces even a format the URL names when `Accept` lists `image/avif`, but
    /// not for an animation (imgproxy's `IMGPROXY_ENFORCE_AVIF`, off by default); it
    /// negotiates AVIF too.
    public var enforcesAVIF = false
    /// Whether JPEG XL replaces even a format the URL names when `Accept` lists `image/jxl`,
    /// but not for an animation (imgproxy's `IMGPROXY_ENFORCE_JXL`, off by default); it
    /// negotiates JPEG XL too.
    public var enforcesJXL = false
    /// Whether an imgproxy URL without a width or `dpr` takes them from the client hints headers
    /// (`Sec-CH-Width`/`Width`, `Sec-CH-DPR`/`DPR`), as imgproxy's `IMGPROXY_ENABLE_CLIENT_HINTS`
    /// (off by default).
    public var readsClientHints = false
    /// Whether a 16-bit PNG or TIFF source keeps its 16 bits per channel in a PNG result when
    /// the URL's `preserve_hdr` does not say (imgproxy's `IMGPROXY_PRESERVE_HDR`, off by
    /// default): `ResultEncoder.keepsDeepSamples(options:)`.
    public var preservesHDR = false
    /// Whether sources are turned upright by their EXIF orientation when the URL's `auto_rotate`
    /// does not say (imgproxy's `IMGPROXY_AUTO_ROTATE`, on by default).
    public var autoRotates = true
    /// Whether a source's embedded thumbnail (HEIF and AVIF thumbnail items) is the image when
    /// the URL's `enforce_thumbnail` does not say (imgproxy's `IMGPROXY_ENFORCE_THUMBNAIL`,
    /// off by default).
    public var enforcesThumbnail = false
    /// Whether an SVG answered as SVG (an SVG source with no format in the URL, `@svg`, or
    /// `skip_processing:svg`) is the source sanitised (`SVGSanitizer`: scripts, event
    /// attributes and outside references removed, entity declarations refused), imgproxy's
    /// `IMGPROXY_SANITIZE_SVG`, on by default; off, it is the source's bytes.
    public var sanitizesSVG = true
    /// Whether an SVG source with no format in the URL is rendered (JPEG, or PNG with
    /// transparency; a negotiated format when `Accept` gives one) instead of answered as SVG,
    /// imgproxy's `IMGPROXY_ALWAYS_RASTERIZE_SVG`, off by default.
    public var alwaysRasterizesSVG = false
    /// `Cache-Control: max-age` of results, in seconds.
    public var timeToLive = 31_536_000
    /// Where image answers' `ETag` comes from (``ETagMode``): Loupe's digest by default.
    public var etagMode = ETagMode.digest
    /// imgproxy's ETag buster: with ``ETagMode/origin``, the answer's `ETag` is
    /// `"<buster>/<the origin's, base64url>"`; `nil` for the origin's as it is.
    public var etagBuster: String?
    /// Where image answers' `Last-Modified` comes from (``LastModifiedMode``): local files' by default.
    public var lastModifiedMode = LastModifiedMode.local
    /// imgproxy's Last-Modified buster: with ``LastModifiedMode/origin``, no answer's
    /// `Last-Modified` is older, and an `If-Modified-Since` not after it is not sent on.
    public var lastModifiedBuster: Date?
    /// The quality of the lossy formats without one in ``formatQuality``, when the URL sets
    /// none (imgproxy's `IMGPROXY_QUALITY`).
    public var defaultQuality = 80
    /// The SSRF guard.
    public var addressPolicy = NetworkAddressPolicy()
    /// `s3://` sources: off by default; the endpoint, region, buckets and credentials.
    public var s3 = S3Settings()
    /// The bucket (and key prefix) that keeps results for a whole cluster, on the S3 server of
    /// ``s3`` (``ResultStorage``); `nil`: results are kept by each instance only.
    var resultStorage: ResultStoragePlace?
    /// The path every route of `loupe serve` is under (imgproxy's `IMGPROXY_PATH_PREFIX`), e.g.
    /// `/images`: `/images/<signature>/…`, `/images/health`; empty for the root. Signatures sign
    /// the path after it, as imgproxy's do.
    public var pathPrefix = ""
    /// The origin allowed to read answers from a browser (`Access-Control-Allow-Origin`, with
    /// `GET, OPTIONS` allowed, and preflights answered); `nil` sends no CORS headers.
    public var allowOrigin: String?
    /// Bearer token authorising `POST /batch`; `nil`: batches must be signed.
    public var batchToken: String?
    /// Named option sets (`--presets`, `--presets-file`), used by `preset`/`pr` in URLs; the
    /// one named `default` applies to every URL before its own options.
    public var presets = Presets()
    /// Whether a URL's options part is only `:`-separated preset names (imgproxy's
    /// `IMGPROXY_ONLY_PRESETS`).
    public var onlyPresets = false
    /// imgproxy's other parser settings: the arguments' separator, the options a URL may use,
    /// and how sources are rewritten (a base URL, replacements, base64 file names).
    public var urlParsing = URLParsing()
    /// Serve the playground page at `/` (and, with a key, its signing endpoint): a development
    /// aid, off by default (``ImageRoutes/Endpoints/playground``).
    public var playground = false
    /// The sample photos, feed and menu the playground offers (set by `loupe serve --dev`).
    public var playgroundSamples = PlaygroundSamples()
    /// Quality per output format when the URL gives none, over ``defaultQuality`` (imgproxy's
    /// `IMGPROXY_FORMAT_QUALITY`); a URL's `format_quality` and `quality` win over it. It starts
    /// at imgproxy's ``defaultFormatQuality``, which a setting's pairs replace format by format.
    public var formatQuality = ServerSettings.defaultFormatQuality
    /// The watermark image URLs' `watermark`/`wm` draws (imgproxy's `IMGPROXY_WATERMARK_*`);
    /// `nil`: none, and `wm` draws nothing. Loaded by ``ImageRoutes/reloadWatermark()``.
    public var watermark: AuxiliaryImageSource?
    /// Multiplies every URL's watermark opacity, 0...1.
    public var watermarkOpacity = 1.0
    /// The image answered, processed with the URL's options, when a source cannot be loaded
    /// (imgproxy's `IMGPROXY_FALLBACK_IMAGE_*`, `FallbackImage`); `nil`: the failure's JSON error.
    /// Loaded by ``ImageRoutes/loadFallbackImage()``.
    public var fallbackImage: AuxiliaryImageSource?
    /// The status a fallback image is answered with (imgproxy's default, 200); 0: the status
    /// of the failure it stands in for.
    public var fallbackImageStatus = 200
    /// `Cache-Control` max-age of a fallback image in seconds; 0: a result's own (``timeToLive``
    /// for a status below 400, none for an error status), as imgproxy's unset TTL.
    public var fallbackImageTimeToLive = 0
    /// Whether imgproxy's URLs are served.
    public var servesImgproxyURLs = true
    /// Whether thumbor's URLs (`/unsafe/…`, `/<HMAC-SHA1>/…`) are served.
    public var servesThumborURLs = true
    /// thumbor's `SECURITY_KEY`, which signs thumbor URLs; `nil`: signed thumbor URLs are refused.
    public var thumborSecurityKey: String?
    /// thumbor's `ALLOW_UNSAFE_URL`: whether `/unsafe/…` thumbor URLs are served. Off by default,
    /// unlike thumbor, because Loupe serves nothing unsigned unless told to.
    public var thumborAllowsUnsafe = false

    /// The defaults.
    public init() {}

    /// imgproxy 4's quality of the formats that have their own when nothing sets one: WebP 79,
    /// AVIF 63, JPEG XL 77; every other lossy format gets ``defaultQuality``.
    public static let defaultFormatQuality: [ImageFormat: Int] = [.webp: 79, .avif: 63, .jxl: 77]

    /// Whether a result's format may depend on `Accept` (a format negotiated or enforced): then
    /// every image answer says `Vary: Accept`, whatever its URL names, as imgproxy's do.
    var variesWithAccept: Bool {
        negotiatesWebP || negotiatesAVIF || negotiatesJXL || enforcesWebP || enforcesAVIF || enforcesJXL
    }

    /// Every image answer's `Vary`, as imgproxy's: `Accept` when ``variesWithAccept``, the client
    /// hints' headers when the server reads them; `nil` for neither.
    var vary: String? {
        let names = (variesWithAccept ? ["Accept"] : []) + (readsClientHints ? ClientHints.headerNames : [])
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }

    /// Settings from `flags` (by flag name, without dashes) over `environment`: its `LOUPE_*`
    /// variables, then thumbor's (`THUMBOR_SECURITY_KEY`, ...), then imgproxy's `IMGPROXY_*` ones (``ImgproxyEnvironment``) below them, each
    /// read as its declaration in ``all`` says.
    /// - Throws: the first invalid or unknown setting, as one line naming it.
    public init(flags: [String: String], environment: [String: String]) throws(SettingsError) {
        let known = Set(Self.all.map(\.flag))
        if let unknown = flags.keys.sorted().first(where: { !known.contains($0) }) {
            throw SettingsError("unknown setting --\(unknown)")
        }
        var values: [String: (value: String, origin: String)] = [:]
        for setting in Self.all {
            if let value = flags[setting.flag] {
                values[setting.flag] = (value, "--\(setting.flag)")
            } else if let value = environment[setting.environmentVariable] {
                values[setting.flag] = (value, setting.environmentVariable)
            } else if let name = setting.thumborVariable, let value = environment[name] {
                values[setting.flag] = (value, name)
            }
        }
        values.merge(try ImgproxyEnvironment.values(in: environment, besides: Set(values.keys))) { loupe, _ in loupe }
        var draft = SettingsDraft()
        for setting in Self.all {
            if let (text, origin) = values[setting.flag] { try setting.apply(&draft, text, origin) }
        }
        self = try Self.combining(draft)
        if s3.isEnabled || resultStorage != nil { try s3.readCredentials(from: environment) }
    }

    /// The settings of `draft` with the parts read together combined and checked against each other.
    private static func combining(_ draft: SettingsDraft) throws(SettingsError) -> ServerSettings {
        var settings = draft.settings
        guard draft.keys.count == draft.salts.count else {
            throw SettingsError("--key has \(draft.keys.count) keys and --salt \(draft.salts.count) salts: give one salt per key")
        }
        settings.keys = zip(draft.keys, draft.salts).map { URLSigner.KeyPair(key: $0, salt: $1) }
        if settings.allowsUnsigned, !settings.keys.isEmpty {
            throw SettingsError("--allow-unsigned cannot be combined with a signing key")
        }
        settings.presets = try Presets(definitions: draft.presets + draft.presetFileLines, separator: settings.urlParsing.argumentsSeparator)
        if settings.onlyPresets, settings.presets.isEmpty { throw SettingsError("--only-presets needs presets (--presets or --presets-file)") }
        settings.watermark = try AuxiliaryImageSource(data: draft.watermarkData, path: draft.watermarkPath, url: draft.watermarkURL)
        settings.fallbackImage = try AuxiliaryImageSource(data: draft.fallbackImageData, path: draft.fallbackImagePath, url: draft.fallbackImageURL)
        // A body-less status cannot carry the image (imgproxy takes 100–599; these would not reach a client intact).
        if settings.fallbackImageStatus != 0, !(200...599).contains(settings.fallbackImageStatus) || [204, 205, 304].contains(settings.fallbackImageStatus) {
            throw SettingsError("--fallback-image-http-code \(settings.fallbackImageStatus) is not a status that carries an image: 0 or 200–599 but 204, 205 and 304")
        }
        return settings
    }

    /// Whether unsigned URLs are served: no key set and `--allow-unsigned` given.
    var servesUnsigned: Bool { keys.isEmpty && allowsUnsigned }
}

extension SourcePolicy {
    /// Every http(s) URL.
    public static let any = SourcePolicy(prefixes: [])

    private init(prefixes: [Prefix]) { self.prefixes = prefixes }
}

import Foundation
import LoupeCodecs
import LoupeLoading

extension ServerSettings {
    /// Every setting, declared once each, in the order of `--help` and docs/service.md. A new
    /// setting is one more line here (and its field in ``ServerSettings``): its flag, its
    /// `LOUPE_*` variable, its imgproxy variables, `--help` and both docs tables follow.
    public static let all: [Setting] = [
        Setting("host", .text("<address>"), \.host, "address to listen on", imgproxy: [
            ImgproxyVariable("IMGPROXY_BIND", "`host:port`, `[v6]:port` or `:port`; `:port` (every interface) becomes host `0.0.0.0`. Without it Loupe listens on 127.0.0.1:8080, imgproxy on every interface: set it (or `LOUPE_HOST`) in a container") { value, _ throws(SettingsError) in
                try .value(ImgproxyEnvironment.bind(value).host)
            },
        ]),
        Setting("port", .integer(in: 0...65_535), \.port, "port to listen on, 0 for any free one", imgproxy: [
            ImgproxyVariable("IMGPROXY_BIND", nil) { value, _ throws(SettingsError) in try .value(ImgproxyEnvironment.bind(value).port) },
        ]),
        Setting("key", .hexList, part: \.keys, "signing keys in hex, comma-separated for rotation", imgproxy: [
            ImgproxyVariable("IMGPROXY_KEY", "hex, comma-separated for rotation: the same format"),
        ]),
        Setting("salt", .hexList, part: \.salts, "signing salts in hex, one per key", imgproxy: [
            ImgproxyVariable("IMGPROXY_SALT", "hex, one per key: the same format"),
        ]),
        Setting("signature-size", .integer(in: 1...32), \.signatureSize, "bytes of the HMAC-SHA256 a signature holds, for URLs signed with a truncated one", imgproxy: [
            ImgproxyVariable("IMGPROXY_SIGNATURE_SIZE", "1–32 bytes"),
        ]),
        Setting("allow-unsigned", .boolean, \.allowsUnsigned, "serve 'insecure' and '_' URLs when no key is set"),
        Setting("imgproxy-urls", .boolean, \.servesImgproxyURLs, "serve imgproxy's URLs"),
        Setting("thumbor-urls", .boolean, \.servesThumborURLs, "serve thumbor's URLs (/unsafe/... and /<signature>/...)"),
        Setting("thumbor-security-key", .nonEmptyText("<key>"), \.thumborSecurityKey,
                "thumbor's SECURITY_KEY, which signs thumbor URLs (HMAC-SHA1)", unset: "signed thumbor URLs refused", thumbor: "THUMBOR_SECURITY_KEY"),
        Setting("thumbor-allow-unsafe", .boolean, \.thumborAllowsUnsafe, "serve thumbor's /unsafe/ URLs (thumbor's ALLOW_UNSAFE_URL)",
                thumbor: "THUMBOR_ALLOW_UNSAFE_URL"),
        Setting("allowed-sources", .sourcePolicy, \.sources, "comma-separated source URL prefixes, * for any run without '/' in a host or path segment; none allows every http(s) URL", imgproxy: [
            ImgproxyVariable("IMGPROXY_ALLOWED_SOURCES", "comma-separated prefixes, compared by parsed scheme, host, port and path (imgproxy compares text); `local:///folder/` prefixes apply to local sources as in imgproxy; `*` is imgproxy's wildcard (any run without `/`), matched within the host or within one path segment, so `https://*.example.com/` allows `a.example.com` but not `a.example.community` (imgproxy's text match allows both)") { value, _ throws(SettingsError) in
                try .value(ImgproxyEnvironment.allowedSources(value))
            },
        ]),
        Setting("local-root", .rootedFolder, \.localRoot, "folder that local:///path sources are read from", unset: "local sources refused", imgproxy: [
            ImgproxyVariable("IMGPROXY_LOCAL_FILESYSTEM_ROOT", "a folder; must exist. Loupe refuses symbolic links under it (imgproxy follows them) and `..` components (imgproxy cleans them)"),
        ]),
        Setting("cache-dir", .folder, \.cacheDirectory, "folder for the source and result disk caches", unset: "memory only"),
        Setting("disk-limit", .megabytes(in: 1...1 << 30), \.diskLimit, "disk cache limit in MB, for sources and results each"),
        Setting("memory-limit", .megabytes(in: 0...1 << 30), \.memoryLimit, "memory cache limit in MB of decoded pixels, 0 for none"),
        Setting("result-memory-limit", .megabytes(in: 0...1 << 20), \.resultMemoryLimit,
                "memory limit in MB of encoded results kept in front of the disk result cache, 0 for none"),
        Setting("max-source-size", .fraction(upTo: Double(largestSourceMegabytes), unit: Double(1 << 20), valueName: "<mb>"), \.maximumSourceBytes,
                "largest source in MB, fractions allowed", imgproxy: [
            ImgproxyVariable("IMGPROXY_MAX_SRC_FILE_SIZE", "bytes, converted to Loupe's (fractional) megabytes exactly; `0` (imgproxy's no limit) becomes Loupe's largest, 4096 MB") { value, _ throws(SettingsError) in
                try ImgproxyEnvironment.megabytes(ofBytes: value, "IMGPROXY_MAX_SRC_FILE_SIZE")
            },
        ]),
        Setting("max-source-pixels", .fraction(upTo: 1000, unit: 1_000_000, valueName: "<megapixels>"), \.maximumSourcePixels,
                "largest source in megapixels, fractions allowed, checked from its header", imgproxy: [
            ImgproxyVariable("IMGPROXY_MAX_SRC_RESOLUTION", "megapixels, fractional, in both") { value, _ throws(SettingsError) in
                guard let megapixels = Double(value.trimmingCharacters(in: .whitespaces)), megapixels > 0, megapixels.isFinite else {
                    throw SettingsError("IMGPROXY_MAX_SRC_RESOLUTION '\(value)' is not a positive number of megapixels")
                }
                return .value(value.trimmingCharacters(in: .whitespaces))
            },
        ]),
        Setting("max-result-dimension", .integer(in: 1...largestResultDimension), \.maximumResultDimension, "largest side of a result in pixels", imgproxy: [
            .unlimitedAtZero("IMGPROXY_MAX_RESULT_DIMENSION", "pixels; `0` (no limit) becomes Loupe's largest, 65500", largest: largestResultDimension),
        ]),
        Setting("max-animation-frames", .integer(in: 1...largestAnimationFrames), \.maximumAnimationFrames,
                "most frames of an animation kept, the rest dropped; 1 answers the first frame, as imgproxy's default", imgproxy: [
            ImgproxyVariable("IMGPROXY_MAX_ANIMATION_FRAMES", "the most frames of an animation kept; imgproxy's default 1 answers the first frame, Loupe's 100 keeps animations (set 1 for imgproxy's)"),
        ]),
        Setting("max-request-cost", .integer(in: 1...1_000_000_000), \.maximumRequestCost,
                "most one request may cost, in millions of pixel operations, estimated before decoding; over it 422"),
        Setting("workers", .integer(in: 1...1024), \.workers, "decodes and processing at once", unset: "cores", imgproxy: [
            ImgproxyVariable("IMGPROXY_WORKERS", "a whole number"),
        ]),
        Setting("queue", .integer(in: 0...largestQueue), \.queueLength, "requests that may wait for a worker; beyond them 429", imgproxy: [
            .unlimitedAtZero("IMGPROXY_REQUESTS_QUEUE_SIZE", "`0` (imgproxy's unlimited queue) becomes Loupe's largest, 1000000", largest: largestQueue),
        ]),
        Setting("memory-budget", .megabytes(in: 1...1 << 20), \.memoryBudget,
                "MB of memory for downloaded sources waiting to be decoded and for decodes; past it downloads wait"),
        Setting("download-timeout", .seconds(in: 1...3600), \.downloadTimeout, "seconds for one source download", imgproxy: [
            ImgproxyVariable("IMGPROXY_DOWNLOAD_TIMEOUT", "seconds in both"),
        ]),
        Setting("request-timeout", .seconds(in: 1...3600), \.requestTimeout, "seconds for one request", imgproxy: [
            ImgproxyVariable("IMGPROXY_TIMEOUT", "seconds in both"),
        ]),
        Setting("drain-delay", .seconds(in: 0...3600), \.drainDelay, "seconds to keep accepting requests after SIGTERM while /health answers 503"),
        Setting("negotiate-webp", .boolean, \.negotiatesWebP,
                "answer WebP when Accept lists image/webp and the URL names no format (off: imgproxy's default)", imgproxy: [
            .boolean("IMGPROXY_AUTO_WEBP", "boolean; unset, Loupe negotiates WebP where imgproxy does not: set `false` for imgproxy's behaviour (no negotiation, no `Vary: Accept` unless another switch is on)"),
            .boolean("IMGPROXY_ENABLE_WEBP_DETECTION", "imgproxy's older name, below `IMGPROXY_AUTO_WEBP`"),
        ]),
        Setting("negotiate-avif", .boolean, \.negotiatesAVIF,
                "answer AVIF when Accept lists image/avif and the URL names no format, over WebP (not for animations)", imgproxy: [
            .boolean("IMGPROXY_AUTO_AVIF", "boolean, imgproxy's spellings only (Go's `strconv.ParseBool`: `1`, `t`, `T`, `TRUE`, `true`, `True` and their `false` counterparts)"),
            .boolean("IMGPROXY_ENABLE_AVIF_DETECTION", "imgproxy's older name, below `IMGPROXY_AUTO_AVIF`"),
        ]),
        Setting("negotiate-jxl", .boolean, \.negotiatesJXL,
                "answer JPEG XL when Accept lists image/jxl and the URL names no format, over AVIF and WebP (not for animations)", imgproxy: [
            .boolean("IMGPROXY_AUTO_JXL", "boolean"),
        ]),
        Setting("enforce-webp", .boolean, \.enforcesWebP,
                "answer WebP when Accept lists image/webp even if the URL names another format", imgproxy: [
            .boolean("IMGPROXY_ENFORCE_WEBP", "boolean"),
        ]),
        Setting("enforce-avif", .boolean, \.enforcesAVIF,
                "answer AVIF when Accept lists image/avif even if the URL names another format, over WebP (not for animations)", imgproxy: [
            .boolean("IMGPROXY_ENFORCE_AVIF", "boolean"),
        ]),
        Setting("enforce-jxl", .boolean, \.enforcesJXL,
                "answer JPEG XL when Accept lists image/jxl even if the URL names another format, over AVIF and WebP (not for animations)", imgproxy: [
            .boolean("IMGPROXY_ENFORCE_JXL", "boolean"),
        ]),
        Setting("client-hints", .boolean, \.readsClientHints,
                "take width and DPR from the client hints headers (Sec-CH-Width or Width, Sec-CH-DPR or DPR) where an imgproxy URL gives none", imgproxy: [
            .boolean("IMGPROXY_ENABLE_CLIENT_HINTS", "boolean"),
        ]),
        Setting("preserve-hdr", .boolean, \.preservesHDR,
                "keep 16 bits per channel of a 16-bit PNG or TIFF source in a PNG result when the URL's preserve_hdr does not say", imgproxy: [
            .boolean("IMGPROXY_PRESERVE_HDR", "boolean"),
        ]),
        Setting("auto-rotate", .boolean, \.autoRotates,
                "turn sources upright by their EXIF orientation when the URL's auto_rotate does not say", imgproxy: [
            .boolean("IMGPROXY_AUTO_ROTATE", "boolean, imgproxy's spellings only"),
        ]),
        Setting("enforce-thumbnail", .boolean, \.enforcesThumbnail,
                "decode a source's embedded thumbnail (HEIF and AVIF thumbnail items) as the image when the URL's enforce_thumbnail does not say", imgproxy: [
            .boolean("IMGPROXY_ENFORCE_THUMBNAIL", "boolean, imgproxy's spellings only"),
        ]),
        Setting("sanitize-svg", .boolean, \.sanitizesSVG,
                "remove scripts, event attributes and outside references from SVG answered as SVG; documents declaring entities are refused", imgproxy: [
            .boolean("IMGPROXY_SANITIZE_SVG", "boolean, imgproxy's spellings only"),
        ]),
        Setting("always-rasterize-svg", .boolean, \.alwaysRasterizesSVG,
                "answer an SVG source without a format in the URL as a raster image (the source's rule: PNG or JPEG), not as SVG", imgproxy: [
            .boolean("IMGPROXY_ALWAYS_RASTERIZE_SVG", "boolean, imgproxy's spellings only"),
        ]),
        Setting("ttl", .integer(in: 0...315_360_000), \.timeToLive, "Cache-Control max-age of results in seconds", imgproxy: [
            ImgproxyVariable("IMGPROXY_TTL", "seconds (`Cache-Control: max-age`)"),
        ]),
        // The answers' validators (OriginValidators): Loupe's digest ETag, or imgproxy 4's, the source's own.
        Setting("etag", .mode, \.etagMode,
                "ETag of image answers: digest (of the result; If-None-Match checked here), origin (the source's; If-None-Match sent to it, its 304 answered), none", imgproxy: [
            ImgproxyVariable("IMGPROXY_USE_ETAG", "boolean: `true` is `origin`, imgproxy 4's ETag (the origin's, the request's `If-None-Match` sent to it, its `304` answered without processing), `false` is `none`; unset, Loupe sends its own digest of the result (`digest`), imgproxy 4 the origin's", isBoolean: true) { value, _ throws(SettingsError) in
                try .value(ImgproxyEnvironment.boolean(value, "IMGPROXY_USE_ETAG") ? ETagMode.origin.rawValue : ETagMode.none.rawValue)
            },
            // A buster asks for imgproxy's ETag, which it changes (IMGPROXY_USE_ETAG is on by default there).
            ImgproxyVariable("IMGPROXY_ETAG_BUSTER", nil) { _, _ in .value(ETagMode.origin.rawValue) },
        ]),
        Setting("etag-buster", .etagBuster, \.etagBuster,
                "with --etag origin, the ETag is \"<buster>/<the origin's, base64url>\" and If-None-Match must carry it; change it to void every client's copy",
                unset: "the origin's ETag as it is", imgproxy: [
            ImgproxyVariable("IMGPROXY_ETAG_BUSTER", "text (visible ASCII without `\"` or `\\`, at most 64 characters), imgproxy's format; set alone, it also sets `--etag origin`"),
        ]),
        Setting("last-modified", .mode, \.lastModifiedMode,
                "Last-Modified of image answers: local (local files' own), origin (also the origin's; If-Modified-Since sent to it), none", imgproxy: [
            ImgproxyVariable("IMGPROXY_USE_LAST_MODIFIED", "boolean: `true` is `origin` (the origin's `Last-Modified` passed on, `If-Modified-Since` sent to it), `false` is `none`; unset, Loupe sends local files' only (`local`), imgproxy 4 the origin's too", isBoolean: true) { value, _ throws(SettingsError) in
                try .value(ImgproxyEnvironment.boolean(value, "IMGPROXY_USE_LAST_MODIFIED") ? LastModifiedMode.origin.rawValue : LastModifiedMode.none.rawValue)
            },
            ImgproxyVariable("IMGPROXY_LAST_MODIFIED_BUSTER", nil) { _, _ in .value(LastModifiedMode.origin.rawValue) },
        ]),
        Setting("last-modified-buster", .rfc3339Time, \.lastModifiedBuster,
                "with --last-modified origin, an older Last-Modified is answered as this time (RFC 3339) and an If-Modified-Since not after it is not sent on",
                unset: "none", imgproxy: [
            ImgproxyVariable("IMGPROXY_LAST_MODIFIED_BUSTER", "an RFC 3339 time, imgproxy's format; set alone, it also sets `--last-modified origin`"),
        ]),
        Setting("quality", .integer(in: 1...100), \.defaultQuality, "quality of the lossy formats --format-quality has none for, when the URL gives none", imgproxy: [
            ImgproxyVariable("IMGPROXY_QUALITY", "1–100"),
        ]),
        Setting("allow-private-networks", .boolean, \.addressPolicy.allowsPrivateNetworks,
                "let sources resolve to private, loopback and link-local addresses",
                imgproxy: ImgproxyEnvironment.privateNetworkVariables),
        Setting("permit-addresses", .ipAddresses, \.addressPolicy.permittedAddresses,
                "comma-separated IP addresses allowed despite the private-network guard"),
        Setting("use-s3", .boolean, \.s3.isEnabled,
                "load s3://bucket/key sources, signed with AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY or the AWS shared credentials file", imgproxy: [
            .boolean("IMGPROXY_USE_S3", "boolean; the credentials come from the same `AWS_*` variables and shared credentials file (`AWS_SHARED_CREDENTIALS_FILE`, `AWS_PROFILE`); no instance roles"),
        ]),
        Setting("s3-endpoint", .s3Endpoint, \.s3.endpoint, "S3 server's URL, http(s)://host[:port] (MinIO, Ceph, R2, https://storage.googleapis.com)",
                unset: "AWS's endpoint of the region", imgproxy: [
            ImgproxyVariable("IMGPROXY_S3_ENDPOINT", "a URL; without a scheme, `http://` is put in front. It may be a private or loopback address: the guard applies to source URLs, and an `s3://` URL names a bucket, not a host") { value, _ in
                let trimmed = value.trimmingCharacters(in: .whitespaces)
                return .value(trimmed.isEmpty || trimmed.contains("://") ? trimmed : "http://" + trimmed)
            },
        ]),
        Setting("s3-region", .s3Region, \.s3.region, "S3 signing region", unset: "AWS_REGION, else us-east-1", imgproxy: [
            ImgproxyVariable("IMGPROXY_S3_REGION", "a region name, e.g. `eu-west-1`"),
        ]),
        Setting("s3-path-style", .boolean, \.s3.usesPathStyle, "address S3 objects as endpoint/bucket/key rather than bucket.endpoint/key", imgproxy: [
            .boolean("IMGPROXY_S3_ENDPOINT_USE_PATH_STYLE", "boolean, imgproxy's default `true` in both"),
        ]),
        Setting("s3-allowed-buckets", .s3Buckets, \.s3.allowedBuckets, "comma-separated buckets s3:// sources may name; none allows any", imgproxy: [
            ImgproxyVariable("IMGPROXY_S3_ALLOWED_BUCKETS", "comma-separated bucket names"),
        ]),
        Setting("s3-denied-buckets", .s3Buckets, \.s3.deniedBuckets, "comma-separated buckets s3:// sources may not name", imgproxy: [
            ImgproxyVariable("IMGPROXY_S3_DENIED_BUCKETS", "comma-separated bucket names"),
        ]),
        Setting("result-storage", .resultStorage, \.resultStorage,
                "keep results in this bucket for every instance, on the --s3-endpoint server with the same credentials (sources need not be s3://)",
                unset: "each instance keeps its own"),
        Setting("path-prefix", .pathPrefix, \.pathPrefix, "serve every route under this path, e.g. /images (signatures sign the path after it)", imgproxy: [
            ImgproxyVariable("IMGPROXY_PATH_PREFIX", "a path such as `/images`"),
        ]),
        Setting("allow-origin", .nonEmptyText("<origin>"), \.allowOrigin, "CORS: the origin allowed to read answers (e.g. https://app.example.com or *); OPTIONS answered",
                unset: "no CORS headers", imgproxy: [
            ImgproxyVariable("IMGPROXY_ALLOW_ORIGIN", "an origin or `*`"),
        ]),
        Setting("batch-token", .nonEmptyText("<token>"), \.batchToken, "bearer token for POST /batch", unset: "batches must be signed"),
        Setting("presets", .presetList, part: \.presets,
                "named option sets, comma-separated name=options (e.g. thumb=rs:fill:300:300/q:70); 'default' applies to every URL", imgproxy: [
            ImgproxyVariable("IMGPROXY_PRESETS", "`name=options` pairs, comma-separated (or by `IMGPROXY_PRESETS_SEPARATOR`)", companions: [
                ("IMGPROXY_PRESETS_SEPARATOR", "the separator of `IMGPROXY_PRESETS`'s list, read with it"),
            ]) { value, environment in
                // imgproxy lets the list separator be changed; Loupe's list is comma-separated.
                let separator = environment["IMGPROXY_PRESETS_SEPARATOR"].flatMap { $0.isEmpty ? nil : $0 } ?? ","
                return .value(value.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ","))
            },
        ]),
        Setting("presets-file", .presetLines, part: \.presetFileLines, "file of presets, one name=options per line, # starts a comment", imgproxy: [
            ImgproxyVariable("IMGPROXY_PRESETS_PATH", "a file of `name=options` lines"),
        ]),
        Setting("only-presets", .boolean, \.onlyPresets, "a URL's options part is only ':'-separated preset names", imgproxy: [
            .boolean("IMGPROXY_ONLY_PRESETS", "the options part of a URL holds only preset names"),
        ]),
        Setting("arguments-separator", .argumentsSeparator, \.urlParsing.argumentsSeparator, "separator of an option's name and arguments in URLs and presets", imgproxy: [
            ImgproxyVariable("IMGPROXY_ARGUMENTS_SEPARATOR", "one character"),
        ]),
        Setting("allow-security-options", .boolean, \.urlParsing.allowsSecurityOptions,
                "take imgproxy's security options in URLs (max_src_resolution, max_src_file_size, max_animation_frames, "
                + "max_animation_frame_resolution, max_result_dimension), which only lower the server's limits; off, they are a 403", imgproxy: [
            .boolean("IMGPROXY_ALLOW_SECURITY_OPTIONS", "boolean; unset, Loupe takes them (they can only lower its limits) where imgproxy refuses them"),
        ]),
        Setting("allowed-options", .list(), \.urlParsing.allowedOptions,
                "comma-separated option names, as URLs spell them (w and width are two), that URLs may use; others 403", unset: "any", imgproxy: [
            ImgproxyVariable("IMGPROXY_ALLOWED_PROCESSING_OPTIONS", "comma-separated option names; the options inside presets are not checked"),
        ]),
        Setting("base-url", .sourcePrefix, \.urlParsing.baseURL, "put in front of every source that does not start with it", imgproxy: [
            ImgproxyVariable("IMGPROXY_BASE_URL", "a URL prefix, applied after the replacements"),
        ]),
        Setting("url-replacements", .sourceReplacements, \.urlParsing.sourceReplacements,
                "rewrite sources: ';'-separated pattern=replacement, * for any text without '/', ${1} for what it stood for", imgproxy: [
            ImgproxyVariable("IMGPROXY_URL_REPLACEMENTS", "the same list, matched at the start of a source"),
        ]),
        Setting("base64-url-includes-filename", .boolean, \.urlParsing.base64SourceIncludesFilename,
                "a base64 source may be followed by /filename, which is ignored", imgproxy: [
            .boolean("IMGPROXY_BASE64_URL_INCLUDES_FILENAME", "boolean"),
        ]),
        Setting("playground", .boolean, \.playground, "serve the playground page at / and, with a key, its URL-signing endpoint; on with --dev"),
        Setting("format-quality", .formatQualities, \.formatQuality,
                "quality per format when the URL gives none, e.g. jpeg=85,webp=70 (over --quality); the pairs given replace imgproxy's defaults format by format", imgproxy: [
            ImgproxyVariable("IMGPROXY_FORMAT_QUALITY", "`jpeg=80,webp=70` pairs, over the same defaults"),
        ]),
        Setting("watermark-path", .sourced("<path>"), part: \.watermarkPath, "image file drawn by the URL option watermark/wm (re-read on SIGHUP)", imgproxy: [
            ImgproxyVariable("IMGPROXY_WATERMARK_PATH", "the watermark image's file, re-read on SIGHUP"),
        ]),
        Setting("watermark-url", .sourced("<url>"), part: \.watermarkURL,
                "image URL drawn by watermark/wm, loaded at start-up and on SIGHUP (under --watermark-path)", imgproxy: [
            ImgproxyVariable("IMGPROXY_WATERMARK_URL", "the watermark image's URL, loaded through the sources' loader and guard, again on SIGHUP"),
        ]),
        Setting("watermark-data", .sourced("<base64>"), part: \.watermarkData,
                "base64 image drawn by watermark/wm (over --watermark-path and --watermark-url)", imgproxy: [
            ImgproxyVariable("IMGPROXY_WATERMARK_DATA", "the watermark image in base64; as in imgproxy, it wins over the path, which wins over the URL"),
        ]),
        Setting("watermark-opacity", .decimal(in: 0...1), \.watermarkOpacity, "multiplies every URL's watermark opacity, 0 to 1", imgproxy: [
            ImgproxyVariable("IMGPROXY_WATERMARK_OPACITY", "0–1, multiplies every URL's `wm` opacity"),
        ]),
        // The fallback image (FallbackImage): answered for a source that cannot be loaded.
        Setting("fallback-image-path", .sourced("<path>"), part: \.fallbackImagePath,
                "image file answered, processed with the URL's options, when a source cannot be loaded (read at start-up)", imgproxy: [
            ImgproxyVariable("IMGPROXY_FALLBACK_IMAGE_PATH", "the fallback image's file, read once at start-up; one that cannot be read or decoded stops start-up"),
        ]),
        Setting("fallback-image-url", .sourced("<url>"), part: \.fallbackImageURL,
                "image URL answered when a source cannot be loaded, loaded once at start-up (under --fallback-image-path)", imgproxy: [
            ImgproxyVariable("IMGPROXY_FALLBACK_IMAGE_URL", "the fallback image's URL, loaded once at start-up through the sources' loader and guard"),
        ]),
        Setting("fallback-image-data", .sourced("<base64>"), part: \.fallbackImageData,
                "base64 image answered when a source cannot be loaded (over --fallback-image-path and --fallback-image-url)", imgproxy: [
            ImgproxyVariable("IMGPROXY_FALLBACK_IMAGE_DATA", "the fallback image in base64; as in imgproxy, it wins over the path, which wins over the URL"),
        ]),
        Setting("fallback-image-http-code", .integer(in: 0...599), \.fallbackImageStatus,
                "status of a fallback image's answer; 0 for the failed source's own status", imgproxy: [
            ImgproxyVariable("IMGPROXY_FALLBACK_IMAGE_HTTP_CODE", "the same; imgproxy's default, 200, too"),
        ]),
        Setting("fallback-image-ttl", .integer(in: 0...315_360_000), \.fallbackImageTimeToLive,
                "Cache-Control max-age of a fallback image in seconds; 0 for a result's (--ttl below status 400, none from 400)", imgproxy: [
            ImgproxyVariable("IMGPROXY_FALLBACK_IMAGE_TTL", "seconds, the same"),
        ]),
    ]

    /// The largest `max-animation-frames`: far more than any animation a pixel limit admits.
    static let largestAnimationFrames = 100_000
    /// The largest `max-source-size`, in MB.
    static let largestSourceMegabytes = 4096
    /// The largest `max-result-dimension`, in pixels.
    static let largestResultDimension = 65_500
    /// The largest `queue`.
    static let largestQueue = 1_000_000
}

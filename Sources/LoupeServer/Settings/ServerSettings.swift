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
    /// decoded (``RequestCostLimit``); a request over it is refused with 422 naming the option
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
    /// Whether a URL without a format gets AVIF when `Accept` lists `image/avif` (WebP is
    /// negotiated always). Off by default, as imgproxy's `IMGPROXY_AUTO_AVIF`: AVIF encoding
    /// costs several times a WebP's CPU, and nearly every browser lists AVIF, so turning it on
    /// changes the cost of almost every cold request.
    public var negotiatesAVIF = false
    /// `Cache-Control: max-age` of results, in seconds.
    public var timeToLive = 31_536_000
    /// JPEG and WebP quality when the URL sets none.
    public var defaultQuality = 80
    /// The SSRF guard.
    public var addressPolicy = NetworkAddressPolicy()
    /// Bearer token authorising `POST /batch`; `nil`: batches must be signed.
    public var batchToken: String?
    /// Named option sets (`--presets`, `--presets-file`), used by `preset`/`pr` in URLs; the
    /// one named `default` applies to every URL before its own options.
    public var presets = Presets()
    /// Whether a URL's options part is only `:`-separated preset names (imgproxy's
    /// `IMGPROXY_ONLY_PRESETS`).
    public var onlyPresets = false
    /// Serve the playground page at `/` (and, with a key, its signing endpoint): a development
    /// aid, off by default (``ImageRoutes/Endpoints/playground``).
    public var playground = false
    /// The sample photos, feed and menu the playground offers (set by `loupe serve --dev`).
    public var playgroundSamples = PlaygroundSamples()
    /// Quality per output format when the URL gives none, over ``defaultQuality`` (imgproxy's
    /// `IMGPROXY_FORMAT_QUALITY`); a URL's `format_quality` and `quality` win over it.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// The watermark image URLs' `watermark`/`wm` draws (imgproxy's `IMGPROXY_WATERMARK_*`);
    /// `nil`: none, and `wm` draws nothing. Loaded by ``ImageRoutes/reloadWatermark()``.
    public var watermark: WatermarkSource?
    /// Multiplies every URL's watermark opacity, 0...1.
    public var watermarkOpacity = 1.0

    /// The defaults.
    public init() {}

    /// One setting: its flag, its environment variable and what it is.
    public struct Setting: Sendable {
        /// The flag without dashes, e.g. `port`.
        public let flag: String
        /// What it sets, for `--help` and the README.
        public let help: String
        /// `LOUPE_` and the flag in capitals with `_` for `-`.
        public var environmentVariable: String { "LOUPE_" + flag.uppercased().replacingOccurrences(of: "-", with: "_") }
    }

    /// Every setting, in the order of `--help`.
    public static let all: [Setting] = [
        Setting(flag: "host", help: "address to listen on (default 127.0.0.1)"),
        Setting(flag: "port", help: "port to listen on, 0 for any free one (default 8080)"),
        Setting(flag: "key", help: "signing keys in hex, comma-separated for rotation"),
        Setting(flag: "salt", help: "signing salts in hex, one per key"),
        Setting(flag: "allow-unsigned", help: "serve 'insecure' and '_' URLs when no key is set (true/false)"),
        Setting(flag: "allowed-sources", help: "comma-separated source URL prefixes; none allows every http(s) URL"),
        Setting(flag: "local-root", help: "folder that local:///path sources are read from (default: local sources refused)"),
        Setting(flag: "cache-dir", help: "folder for the source and result disk caches (default: memory only)"),
        Setting(flag: "disk-limit", help: "disk cache limit in MB, for sources and results each (default 1024)"),
        Setting(flag: "memory-limit", help: "memory cache limit in MB of decoded pixels, 0 for none (default 32)"),
        Setting(flag: "result-memory-limit", help: "memory limit in MB of encoded results kept in front of the disk result cache, 0 for none (default 32)"),
        Setting(flag: "max-source-size", help: "largest source in MB, fractions allowed (default 50)"),
        Setting(flag: "max-source-pixels", help: "largest source in megapixels, fractions allowed, checked from its header (default 50)"),
        Setting(flag: "max-result-dimension", help: "largest side of a result in pixels (default 8192)"),
        Setting(flag: "max-animation-frames", help: "most frames of an animation kept, the rest dropped; 1 answers the first frame, as imgproxy's default (default 100)"),
        Setting(flag: "max-request-cost", help: "most one request may cost, in millions of pixel operations, estimated before decoding; over it 422 (default 8000)"),
        Setting(flag: "workers", help: "decodes and processing at once (default: cores)"),
        Setting(flag: "queue", help: "requests that may wait for a worker; beyond them 429 (default 64)"),
        Setting(flag: "memory-budget", help: "MB of memory for downloaded sources waiting to be decoded and for decodes; past it downloads wait (default 32)"),
        Setting(flag: "download-timeout", help: "seconds for one source download (default 10)"),
        Setting(flag: "request-timeout", help: "seconds for one request (default 30)"),
        Setting(flag: "drain-delay", help: "seconds to keep accepting requests after SIGTERM while /health answers 503 (default 0)"),
        Setting(flag: "negotiate-avif", help: "answer AVIF when `Accept` lists `image/avif` and the URL names no format (true/false; default false)"),
        Setting(flag: "ttl", help: "Cache-Control max-age of results in seconds (default 31536000)"),
        Setting(flag: "quality", help: "JPEG and WebP quality when the URL gives none (default 80)"),
        Setting(flag: "allow-private-networks", help: "let sources resolve to private, loopback and link-local addresses (true/false)"),
        Setting(flag: "permit-addresses", help: "comma-separated IP addresses allowed despite the private-network guard"),
        Setting(flag: "batch-token", help: "bearer token for POST /batch (default: batches must be signed)"),
        Setting(flag: "presets", help: "named option sets, comma-separated name=options (e.g. thumb=rs:fill:300:300/q:70); 'default' applies to every URL"),
        Setting(flag: "presets-file", help: "file of presets, one name=options per line, # starts a comment"),
        Setting(flag: "only-presets", help: "a URL's options part is only ':'-separated preset names (true/false)"),
        Setting(flag: "playground", help: "serve the playground page at / and, with a key, its URL-signing endpoint (true/false; on with --dev)"),
        Setting(flag: "format-quality", help: "quality per format when the URL gives none, e.g. jpeg=80,webp=70,avif=60 (over --quality)"),
        Setting(flag: "watermark-path", help: "image file drawn by the URL option watermark/wm (re-read on SIGHUP)"),
        Setting(flag: "watermark-url", help: "image URL drawn by watermark/wm, loaded at start-up and on SIGHUP (under --watermark-path)"),
        Setting(flag: "watermark-data", help: "base64 image drawn by watermark/wm (over --watermark-path and --watermark-url)"),
        Setting(flag: "watermark-opacity", help: "multiplies every URL's watermark opacity, 0 to 1 (default 1)"),
    ]

    /// The largest `max-animation-frames`: far more than any animation a pixel limit admits.
    static let largestAnimationFrames = 100_000

    /// The largest `max-source-size`, in MB.
    static let largestSourceMegabytes = 4096
    /// The largest `max-result-dimension`, in pixels.
    static let largestResultDimension = 65_500
    /// The largest `queue`.
    static let largestQueue = 1_000_000

    /// Settings from `flags` (by flag name, without dashes) over `environment`: its `LOUPE_*`
    /// variables, then imgproxy's `IMGPROXY_*` ones (``ImgproxyEnvironment``) below them.
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
            }
        }
        values.merge(try ImgproxyEnvironment.values(in: environment, besides: Set(values.keys))) { loupe, _ in loupe }
        func integer(_ flag: String, _ range: ClosedRange<Int>) throws(SettingsError) -> Int? {
            guard let (text, origin) = values[flag] else { return nil }
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                throw SettingsError("\(origin) '\(text)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return value
        }
        func decimal(_ flag: String, upTo maximum: Double) throws(SettingsError) -> Double? {
            guard let (text, origin) = values[flag] else { return nil }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0, value <= maximum else {
                throw SettingsError("\(origin) '\(text)' is not a number above 0 and at most \(Int(maximum))")
            }
            return value
        }
        func boolean(_ flag: String) throws(SettingsError) -> Bool? {
            guard let (text, origin) = values[flag] else { return nil }
            guard let value = BooleanSpelling.value(of: text) else {
                throw SettingsError("\(origin) '\(text)' is not a boolean (\(BooleanSpelling.accepted))")
            }
            return value
        }
        func list(_ flag: String) -> [String]? {
            values[flag].map { $0.value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        func hexList(_ flag: String) throws(SettingsError) -> [Data]? {
            guard let items = list(flag) else { return nil }
            var result: [Data] = []
            for item in items {
                guard let data = Self.hex(item), !data.isEmpty else {
                    throw SettingsError("\(values[flag]?.origin ?? flag) '\(item)' is not hexadecimal")
                }
                result.append(data)
            }
            return result
        }

        self.init()
        if let host = values["host"]?.value {
            guard !host.isEmpty else { throw SettingsError("--host is empty") }
            self.host = host
        }
        port = try integer("port", 0...65_535) ?? port
        let keys = try hexList("key") ?? [], salts = try hexList("salt") ?? []
        guard keys.count == salts.count else {
            throw SettingsError("--key has \(keys.count) keys and --salt \(salts.count) salts: give one salt per key")
        }
        self.keys = zip(keys, salts).map { URLSigner.KeyPair(key: $0, salt: $1) }
        allowsUnsigned = try boolean("allow-unsigned") ?? false
        if allowsUnsigned, !self.keys.isEmpty {
            throw SettingsError("--allow-unsigned cannot be combined with a signing key")
        }
        sources = try SourcePolicy(allowedPrefixes: list("allowed-sources") ?? [])
        if let (folder, origin) = values["local-root"], !folder.isEmpty {
            do throws(RootedFileError) {
                localRoot = try RootedFileSystem(root: folder)
            } catch .rootUnusable(let reason) {
                throw SettingsError("\(origin) '\(folder)' \(reason)")
            } catch {
                throw SettingsError("\(origin) '\(folder)': \(error)")
            }
        }
        if let folder = values["cache-dir"]?.value, !folder.isEmpty { cacheDirectory = URL(fileURLWithPath: folder) }
        diskLimit = try integer("disk-limit", 1...1 << 30).map { $0 << 20 } ?? diskLimit
        memoryLimit = try integer("memory-limit", 0...1 << 30).map { $0 << 20 } ?? memoryLimit
        resultMemoryLimit = try integer("result-memory-limit", 0...1 << 20).map { $0 << 20 } ?? resultMemoryLimit
        // Fractional: imgproxy's limits (bytes, fractional megapixels) convert exactly.
        maximumSourceBytes = try decimal("max-source-size", upTo: Double(Self.largestSourceMegabytes))
            .map { max(1, Int(($0 * Double(1 << 20)).rounded())) } ?? maximumSourceBytes
        maximumSourcePixels = try decimal("max-source-pixels", upTo: 1000).map { max(1, Int(($0 * 1_000_000).rounded())) } ?? maximumSourcePixels
        maximumResultDimension = try integer("max-result-dimension", 1...Self.largestResultDimension) ?? maximumResultDimension
        maximumAnimationFrames = try integer("max-animation-frames", 1...Self.largestAnimationFrames) ?? maximumAnimationFrames
        maximumRequestCost = try integer("max-request-cost", 1...1_000_000_000) ?? maximumRequestCost
        workers = try integer("workers", 1...1024) ?? workers
        queueLength = try integer("queue", 0...Self.largestQueue) ?? queueLength
        memoryBudget = try integer("memory-budget", 1...1 << 20).map { $0 << 20 } ?? memoryBudget
        downloadTimeout = try integer("download-timeout", 1...3600).map { .seconds($0) } ?? downloadTimeout
        requestTimeout = try integer("request-timeout", 1...3600).map { .seconds($0) } ?? requestTimeout
        drainDelay = try integer("drain-delay", 0...3600).map { .seconds($0) } ?? drainDelay
        negotiatesAVIF = try boolean("negotiate-avif") ?? false
        timeToLive = try integer("ttl", 0...315_360_000) ?? timeToLive
        defaultQuality = try integer("quality", 1...100) ?? defaultQuality
        addressPolicy = NetworkAddressPolicy(
            allowsPrivateNetworks: try boolean("allow-private-networks") ?? false,
            permittedAddresses: Set(list("permit-addresses") ?? []))
        for address in addressPolicy.permittedAddresses where !Self.isIPAddress(address) {
            throw SettingsError("--permit-addresses '\(address)' is not an IP address")
        }
        batchToken = values["batch-token"]?.value
        if batchToken?.isEmpty == true { throw SettingsError("--batch-token is empty") }
        formatQuality = try Self.formatQualities(values["format-quality"])
        onlyPresets = try boolean("only-presets") ?? false
        playground = try boolean("playground") ?? false
        var definitions = list("presets") ?? []
        if let (path, origin) = values["presets-file"] {
            definitions += try Self.presetLines(path: path, origin: origin)
        }
        presets = try Presets(definitions: definitions)
        if onlyPresets, presets.isEmpty { throw SettingsError("--only-presets needs presets (--presets or --presets-file)") }
        watermark = try WatermarkSource(data: values["watermark-data"], path: values["watermark-path"], url: values["watermark-url"])
        if let (text, origin) = values["watermark-opacity"] {
            guard let opacity = Double(text.trimmingCharacters(in: .whitespaces)), (0...1).contains(opacity) else {
                throw SettingsError("\(origin) '\(text)' is not a number in 0...1")
            }
            watermarkOpacity = opacity
        }
    }

    /// `--format-quality`'s `format=quality` pairs (imgproxy's format names; quality 1...100).
    private static func formatQualities(_ setting: (value: String, origin: String)?) throws(SettingsError) -> [ImageFormat: Int] {
        guard let (text, origin) = setting else { return [:] }
        var qualities: [ImageFormat: Int] = [:]
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let format = ImgproxyURL.qualityFormat(named: parts[0].lowercased()) else {
                throw SettingsError("\(origin) '\(item)' is not format=quality with an image format (jpeg, webp, avif, ...)")
            }
            guard let quality = Int(parts[1]), (1...100).contains(quality) else {
                throw SettingsError("\(origin) '\(item)': the quality is not a whole number in 1...100")
            }
            if let format { qualities[format] = quality }
        }
        return qualities
    }

    /// The lines of the presets file at `path` (at most ``Presets/maximumFileBytes``).
    private static func presetLines(path: String, origin: String) throws(SettingsError) -> [String] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw SettingsError("\(origin) '\(path)' cannot be read") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: Presets.maximumFileBytes + 1) ?? Data()
        } catch {
            throw SettingsError("\(origin) '\(path)' cannot be read")
        }
        guard data.count <= Presets.maximumFileBytes else {
            throw SettingsError("\(origin) '\(path)' is larger than \(Presets.maximumFileBytes >> 20) MB")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw SettingsError("\(origin) '\(path)' is not UTF-8 text") }
        return text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }.map(String.init)
    }

    /// Whether unsigned URLs are served: no key set and `--allow-unsigned` given.
    var servesUnsigned: Bool { keys.isEmpty && allowsUnsigned }

    private static func hex(_ text: String) -> Data? {
        guard text.count % 2 == 0 else { return nil }
        var data = Data(capacity: text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }

    private static func isIPAddress(_ text: String) -> Bool {
        var v4 = in_addr(), v6 = in6_addr()
        return inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1
    }
}

extension SourcePolicy {
    /// Every http(s) URL.
    public static let any = SourcePolicy(prefixes: [])

    private init(prefixes: [Prefix]) { self.prefixes = prefixes }
}

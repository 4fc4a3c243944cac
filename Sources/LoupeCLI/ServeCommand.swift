import ArgumentParser
import Foundation
import Logging
import LoupeOrigin
import LoupeServer

/// `loupe serve`: the image service — imgproxy-compatible URLs over HTTP on the pipeline.
/// Settings come from flags or `LOUPE_*` environment variables (a flag wins); an invalid one
/// stops start-up with one line on standard error and exit status 2.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve resized images over HTTP with imgproxy-compatible URLs.",
        discussion: """
            Every setting can also be given as an environment variable: LOUPE_ and the flag in capitals \
            with _ for - (LOUPE_PORT, LOUPE_ALLOWED_SOURCES, ...). A flag wins over the variable. \
            imgproxy's IMGPROXY_* variables are read too, below both (docs/imgproxy-environment.md); \
            those Loupe does not take are named in the log at start-up. \
            SIGHUP re-reads the watermark image (a failure is logged and the old one kept). \
            SIGTERM or SIGINT drains: /health answers 503 at once, requests are still accepted for \
            --drain-delay seconds, then no new connection is, requests in flight finish, and the server exits 0. \
            A second SIGTERM or SIGINT during that stops at once, cutting requests in flight, with exit status 1.
            """)

    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on, 0 for any free one (default 8080).") var port: String?
    @Option(help: "Signing keys in hex, comma-separated for rotation.") var key: String?
    @Option(help: "Signing salts in hex, one per key.") var salt: String?
    @Flag(help: "Serve 'insecure' and '_' URLs when no key is set.") var allowUnsigned = false
    @Option(help: "Comma-separated source URL prefixes; none allows every http(s) URL.") var allowedSources: String?
    @Option(help: "Folder that local:///path sources are read from (default: local sources refused).") var localRoot: String?
    @Option(help: "Folder for the source and result disk caches (default: memory only).") var cacheDir: String?
    @Option(help: "Disk cache limit in MB, for sources and results each (default 1024).") var diskLimit: String?
    @Option(help: "Memory cache limit in MB of decoded pixels, 0 for none (default 32).") var memoryLimit: String?
    @Option(help: "Memory limit in MB of encoded results kept in front of the disk result cache, 0 for none (default 32).")
    var resultMemoryLimit: String?
    @Option(help: "Largest source in MB, fractions allowed (default 50).") var maxSourceSize: String?
    @Option(help: "Largest source in megapixels, fractions allowed, checked from its header (default 50).") var maxSourcePixels: String?
    @Option(help: "Largest side of a result in pixels (default 8192).") var maxResultDimension: String?
    @Option(help: "Most frames of an animation kept, the rest dropped; 1 answers the first frame (default 100).") var maxAnimationFrames: String?
    @Option(help: "Most one request may cost, in millions of pixel operations, estimated before decoding; over it 422 (default 8000).")
    var maxRequestCost: String?
    @Option(help: "Decodes and processing at once (default: cores).") var workers: String?
    @Option(help: "Requests that may wait for a worker; beyond them 429 (default 64).") var queue: String?
    @Option(help: "MB of memory for downloaded sources waiting to be decoded and for decodes; past it downloads wait (default 32).")
    var memoryBudget: String?
    @Option(help: "Seconds for one source download (default 10).") var downloadTimeout: String?
    @Option(help: "Seconds for one request (default 30).") var requestTimeout: String?
    @Option(help: "Seconds to keep accepting requests after SIGTERM while /health answers 503 (default 0).") var drainDelay: String?
    @Option(help: "Cache-Control max-age of results in seconds (default 31536000).") var ttl: String?
    @Option(help: "JPEG and WebP quality when the URL gives none (default 80).") var quality: String?
    @Flag(help: "Let sources resolve to private, loopback and link-local addresses.") var allowPrivateNetworks = false
    @Flag(help: "Answer AVIF when Accept lists image/avif and the URL names no format (WebP is always negotiated).")
    var negotiateAvif = false
    @Option(help: "Comma-separated IP addresses allowed despite the private-network guard.") var permitAddresses: String?
    @Option(help: "Bearer token for POST /batch.") var batchToken: String?
    @Option(help: "Named option sets, comma-separated name=options (e.g. thumb=rs:fill:300:300/q:70); 'default' applies to every URL.")
    var presets: String?
    @Option(help: "File of presets, one name=options per line, # starts a comment.") var presetsFile: String?
    @Flag(help: "A URL's options part is only ':'-separated preset names.") var onlyPresets = false
    @Option(help: "Quality per format when the URL gives none, e.g. jpeg=80,webp=70,avif=60 (over --quality).") var formatQuality: String?
    @Option(help: "Image file drawn by the URL option watermark/wm (re-read on SIGHUP).") var watermarkPath: String?
    @Option(help: "Image URL drawn by watermark/wm, loaded at start-up and on SIGHUP.") var watermarkUrl: String?
    @Option(help: "Base64 image drawn by watermark/wm (over --watermark-path and --watermark-url).") var watermarkData: String?
    @Option(help: "Multiplies every URL's watermark opacity, 0 to 1 (default 1).") var watermarkOpacity: String?
    @Flag(help: "Serve the playground page at / (and, with --key, a URL-signing endpoint for it); --dev turns it on.")
    var playground = false
    @Flag(help: "No access log on standard error.") var quiet = false
    @Flag(help: "Development: serve unsigned URLs and sample photos from an origin on 127.0.0.1, and print an example URL.")
    var dev = false

    func run() async throws {
        var flags: [String: String] = [:]
        let given: [(String, String?)] = [
            ("host", host), ("port", port), ("key", key), ("salt", salt), ("allowed-sources", allowedSources),
            ("local-root", localRoot), ("cache-dir", cacheDir), ("disk-limit", diskLimit), ("memory-limit", memoryLimit), ("result-memory-limit", resultMemoryLimit),
            ("max-source-size", maxSourceSize), ("max-source-pixels", maxSourcePixels),
            ("max-result-dimension", maxResultDimension), ("max-animation-frames", maxAnimationFrames), ("max-request-cost", maxRequestCost), ("workers", workers), ("queue", queue),
            ("memory-budget", memoryBudget), ("download-timeout", downloadTimeout), ("request-timeout", requestTimeout), ("drain-delay", drainDelay), ("ttl", ttl),
            ("quality", quality), ("permit-addresses", permitAddresses), ("batch-token", batchToken),
            ("presets", presets), ("presets-file", presetsFile), ("format-quality", formatQuality),
            ("watermark-path", watermarkPath), ("watermark-url", watermarkUrl), ("watermark-data", watermarkData),
            ("watermark-opacity", watermarkOpacity),
        ]
        for case let (name, value?) in given { flags[name] = value }
        if allowUnsigned { flags["allow-unsigned"] = "true" }
        if allowPrivateNetworks { flags["allow-private-networks"] = "true" }
        if negotiateAvif { flags["negotiate-avif"] = "true" }
        if onlyPresets { flags["only-presets"] = "true" }
        if playground { flags["playground"] = "true" }

        let environment = ProcessInfo.processInfo.environment
        var settings: ServerSettings
        do {
            settings = try ServerSettings(flags: flags, environment: environment)
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
        guard dev else {
            try await serve(settings) { _ in }
            return
        }
        guard settings.keys.isEmpty else {
            StandardError.writeLine("loupe serve: --dev serves unsigned URLs and cannot be combined with --key")
            throw ExitCode(2)
        }
        // The sample origin of `loupe demo` (generated photos) on 127.0.0.1, let through the
        // private-network guard, which stays on for everything else.
        settings.allowsUnsigned = true
        settings.addressPolicy.permittedAddresses.insert("127.0.0.1")
        let images = DemoImages()
        try await OriginServer.run(handler: { request in await images.response(for: request.path, latency: .zero) }) { origin in
            settings.playground = true
            settings.playgroundSamples = DemoImages.playgroundSamples(origin: origin)
            let configured = settings
            try await serve(settings) { port in
                let source = origin.url("/photos/sunset.jpg").absoluteString
                StandardOutput.writeLine("""
                    development server: unsigned URLs, sample photos from \(origin.baseURL.absoluteString); try
                      http://\(configured.host):\(port)/ (the playground)
                      http://\(configured.host):\(port)/insecure/rs:fill:300:300/g:ce/q:80/plain/\(source)@webp
                      http://\(configured.host):\(port)/info/insecure/plain/\(source)
                    """)
            }
        }
    }

    /// Runs the server until it is told to stop; `started` is called with the port.
    private func serve(_ settings: ServerSettings, started: @escaping @Sendable (Int) -> Void) async throws {
        let logger = Logger(label: "loupe.serve") { JSONLogHandler(label: $0) }
        // imgproxy's variables Loupe does not take: named once each, never dropped silently.
        for (name, reason) in ImgproxyEnvironment.ignored(in: ProcessInfo.processInfo.environment) {
            logger.warning("ignored imgproxy setting", metadata: ["variable": "\(name)", "reason": "\(reason)"])
        }
        let server: ImageServer
        do {
            server = try ImageServer(settings: settings, logger: logger, accessLog: quiet ? nil : Logger(label: "loupe.access") { JSONLogHandler(label: $0) })
        } catch {
            StandardError.writeLine("loupe serve: cannot start: \(error)")
            throw ExitCode(2)
        }
        do {
            try await server.reloadWatermark()
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
        do {
            try await ServeLifecycle(server: server, logger: logger).run { port in
                StandardOutput.writeLine("loupe serve: listening on http://\(settings.host):\(port)")
                started(port)
            }
        } catch let stop as ServerStop {
            StandardError.writeLine("loupe serve: \(stop)")
            throw ExitCode(1)
        } catch {
            StandardError.writeLine("loupe serve: \(error)")
            throw ExitCode(2)
        }
    }
}

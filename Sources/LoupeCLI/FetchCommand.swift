import ArgumentParser
import Foundation
import Logging
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeServer

/// `loupe fetch`: loads each source through the pipeline and reports (and optionally writes)
/// what it found, one result per source in input order.
struct FetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Load images from URLs or files; report size, format, colours, placeholders; write thumbnails.",
        discussion: """
            A source is an http(s) URL, a file path or a file URL; `-` reads sources from standard input, \
            one per line. An s3://bucket/key[?versionId=…] source is read from S3 with the settings loupe serve \
            reads from the environment (IMGPROXY_S3_ENDPOINT or LOUPE_S3_ENDPOINT, …_S3_REGION, \
            …_S3_ENDPOINT_USE_PATH_STYLE or LOUPE_S3_PATH_STYLE) and the AWS credentials (AWS_ACCESS_KEY_ID, \
            AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION, the shared credentials file). Each source is reported once, in input order, as soon as it and every earlier \
            one are done; sources that name the same image are loaded once.

            With --json, standard output is JSON Lines, one object per source. Success: source, ok (true), \
            format, width, height, outputWidth, outputHeight, frames, bytes, origin (network, disk, memory \
            or file), ms, and when asked dominantColor, backgroundColor, palette, blurhash, thumbhash, path. \
            Failure: source, ok (false), error {kind, message[, status]}, with kind one of invalidSource, \
            network, timeout, http, tooLarge, unsupportedFormat, corrupt, limitExceeded, io.

            Exit status: 0 all succeeded, 1 some failed (the others are still processed and reported), \
            2 usage error.
            """)

    @Argument(help: "http(s) or s3 URLs, file paths or file URLs; - reads them from standard input, one per line.")
    var sources: [String] = []

    @Option(help: ArgumentHelp("Longest side of the output in pixels; decoded downscaled (JPEG straight from the DCT).", valueName: "px"))
    var thumbnail: Int?

    @Option(help: ArgumentHelp("Write each result image into this folder (created if missing); file names come from the sources.", valueName: "dir"))
    var out: String?

    @Option(help: "Format of written images (default: the source's own; GIF and WebP animations stay animated).")
    var format: OutputFormat?

    @Option(help: ArgumentHelp("JPEG / WebP quality of written images, 1-100.", valueName: "1-100"))
    var quality = 85

    @Flag(help: "Report the dominant colour (exactly colorthief's, from the full-size pixels), the poster feed's background colour and a palette.")
    var colors = false

    @Flag(help: "Like --colors, from the downscaled decode: faster, typically within a few units of the exact colours.")
    var fastColors = false

    @Option(help: ArgumentHelp("Colours in the palette, 1-20.", valueName: "n"))
    var paletteSize = 6

    @Option(help: "Also compute a placeholder string: blurhash or thumbhash (base64).")
    var placeholder: PlaceholderKind?

    @Option(help: ArgumentHelp("Disk cache folder (default: $XDG_CACHE_HOME/loupe, else ~/.cache/loupe).", valueName: "dir"))
    var cacheDir: String?

    @Flag(help: "Use no disk cache: load everything from its origin, keep nothing.")
    var noCache = false

    @Option(help: ArgumentHelp("Memory cache limit in MB.", valueName: "MB"))
    var memoryLimit = 64

    @Option(help: ArgumentHelp("Disk cache size limit in MB (least recently used entries go first).", valueName: "MB"))
    var diskLimit = 256

    @Option(help: ArgumentHelp("Images loaded and processed at once.", valueName: "n"))
    var concurrency = 8

    @Option(help: ArgumentHelp("Seconds one download may take in all, connecting included.", valueName: "seconds"))
    var timeout: Double = 30

    @Option(help: ArgumentHelp("Largest download accepted, in MB.", valueName: "MB"))
    var maxSize = 50

    @Option(help: ArgumentHelp("Attempts after a transient failure (connection trouble, timeout, 5xx, 429).", valueName: "n"))
    var retries = 2

    @Flag(help: "Write JSON Lines to standard output, one object per source.")
    var json = false

    @Flag(name: .shortAndLong, help: "No progress bar, and without --json no line for successful sources.")
    var quiet = false

    @Flag(name: .shortAndLong, help: "Log the pipeline's work (keys, stages, outcomes) to standard error.")
    var verbose = false

    func validate() throws {
        guard !sources.isEmpty else { throw ValidationError("no sources given (URLs, files, or - for standard input)") }
        if let thumbnail, thumbnail < 1 { throw ValidationError("--thumbnail must be at least 1 pixel, got \(thumbnail)") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100, got \(quality)") }
        guard (1...20).contains(paletteSize) else { throw ValidationError("--palette-size must be 1-20, got \(paletteSize)") }
        guard memoryLimit >= 0 else { throw ValidationError("--memory-limit must not be negative, got \(memoryLimit)") }
        guard diskLimit >= 1 else { throw ValidationError("--disk-limit must be at least 1 MB, got \(diskLimit)") }
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1-256, got \(concurrency)") }
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be a positive number of seconds, got \(timeout)") }
        guard maxSize >= 1 else { throw ValidationError("--max-size must be at least 1 MB, got \(maxSize)") }
        guard (0...10).contains(retries) else { throw ValidationError("--retries must be 0-10, got \(retries)") }
        if noCache, cacheDir != nil { throw ValidationError("--no-cache and --cache-dir contradict each other") }
        if let out, FileManager.default.fileExists(atPath: out, isDirectory: nil), !isDirectory(out) {
            throw ValidationError("--out \(out) exists and is not a folder")
        }
    }

    func run() async throws {
        let workingDirectory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        let texts = expandStandardInput(sources)
        guard !texts.isEmpty else { throw ValidationError("standard input held no sources") }
        let allSources = texts.map { FetchSource($0, workingDirectory: workingDirectory) }

        var outputDirectory: URL?
        if let out {
            let url = URL(fileURLWithPath: out, relativeTo: workingDirectory).standardizedFileURL
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw ValidationError("cannot create --out folder \(out): \(error.localizedDescription)")
            }
            outputDirectory = url
        }

        // Sources naming the same URL are loaded once: the batch runs over the distinct ones, in
        // the order they first appear, and each source is reported with its image's outcome.
        var firstIndex: [String: Int] = [:]
        var unique: [FetchSource] = []
        let uniqueIndex = allSources.map { source in
            if let index = firstIndex[source.identity] { return index }
            firstIndex[source.identity] = unique.count
            unique.append(source)
            return unique.count - 1
        }
        let stems = OutputNames.stems(for: unique)
        let distinctSources = unique

        // S3's settings and credentials are read only when a source needs them.
        var s3: S3Configuration?
        if distinctSources.contains(where: { (try? $0.url.get())?.scheme == "s3" }) {
            do throws(SettingsError) {
                s3 = try S3Settings.fromEnvironment(ProcessInfo.processInfo.environment).configuration()
            } catch {
                throw ValidationError(error.description)
            }
        }
        let pipeline = makePipeline(disk: openDiskCache(), s3: s3)
        let fetcher = Fetcher(pipeline: pipeline, options: FetchOptions(
            thumbnail: thumbnail, outputDirectory: outputDirectory, format: format, quality: quality,
            colors: fastColors ? .fast : colors ? .exact : nil, paletteSize: paletteSize,
            placeholder: placeholder, decodingLimits: DecodingLimits()))
        let progress = ProgressBar(total: unique.count, isEnabled: !quiet && StandardError.isTerminal)

        let batch = OrderedBatch(Array(unique.indices), maximumConcurrency: concurrency) { index in
            let outcome = await fetcher.fetch(distinctSources[index], outputStem: stems[index])
            progress.advance()
            return outcome
        }
        var outcomes: [Result<FetchedImage, FetchFailure>?] = Array(repeating: nil, count: unique.count)
        var nextToReport = 0
        var failures = 0
        for try await item in batch.results() {
            // The operation never throws: its failures are outcomes.
            outcomes[item.index] = (try? item.result.get()) ?? .failure(FetchFailure(kind: .io, message: "interrupted"))
            // Every source whose image is now known, up to the first one still loading.
            while nextToReport < allSources.count, let outcome = outcomes[uniqueIndex[nextToReport]] {
                let source = allSources[nextToReport].text
                let failed = if case .failure = outcome { true } else { false }
                if failed { failures += 1 }
                if json {
                    progress.printLine(FetchReport.json(source: source, outcome: outcome))
                } else if failed || !quiet {
                    progress.printLine(FetchReport.text(source: source, outcome: outcome))
                }
                nextToReport += 1
            }
        }
        progress.finish()
        await pipeline.shutdown()
        if failures > 0 { throw ExitCode(1) }
    }

    /// The sources with each `-` replaced by the lines of standard input (blank lines skipped).
    private func expandStandardInput(_ sources: [String]) -> [String] {
        guard sources.contains("-") else { return sources }
        let input = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
        let lines = input.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return sources.flatMap { $0 == "-" ? lines : [$0] }
    }

    /// The disk cache, or `nil` with `--no-cache` — and, with a warning, when it cannot be
    /// opened (another `loupe` using it, an unwritable folder): the cache only saves work, so
    /// its absence never fails a run.
    private func openDiskCache() -> DiskCache? {
        guard !noCache else { return nil }
        let directory = CacheLocation.directory(explicit: cacheDir)
        do {
            return try DiskCache(directory: directory, configuration: .init(sizeLimit: diskLimit << 20))
        } catch {
            StandardError.writeLine("loupe: warning: disk cache \(directory.path) unavailable (\(error)); continuing without it")
            return nil
        }
    }

    private func makePipeline(disk: DiskCache?, s3: S3Configuration?) -> ImagePipeline {
        let limits = HTTPLoadingLimits(
            maximumBodySize: maxSize << 20,
            connectTimeout: .milliseconds(Int64(min(timeout, 10) * 1_000)),
            totalTimeout: .milliseconds(Int64(timeout * 1_000)))
        let policy = RetryPolicy(maximumAttempts: retries + 1)
        let loader = RetryingDataLoader(AsyncHTTPClientDataLoader(limits: limits), policy: policy)
        var configuration = ImagePipeline.Configuration(dataCache: disk, dataLoader: loader)
        configuration.s3DataLoader = s3.map { RetryingDataLoader(S3DataLoader(configuration: $0, limits: limits), policy: policy) }
        configuration.maximumConcurrentDataLoads = concurrency
        configuration.memoryCacheCostLimit = memoryLimit << 20
        configuration.isMemoryCacheEnabled = memoryLimit > 0
        // Standard output carries the results; the pipeline's own log goes to standard error,
        // and only when asked for.
        let verbose = self.verbose
        var logger = Logger(label: "loupe") { label -> any LogHandler in
            verbose ? StreamLogHandler.standardError(label: label) : SwiftLogNoOpLogHandler()
        }
        logger.logLevel = verbose ? .debug : .critical
        configuration.logger = logger
        return ImagePipeline(configuration: configuration)
    }

    private func isDirectory(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

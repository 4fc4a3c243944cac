import Foundation
import Loupe
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing
import Logging

/// The service without HTTP: an imgproxy URL in, an encoded image (or a ``ServiceError``) out,
/// through the pipeline — its coalescing, caches and limits — then the encoder.
///
/// Identical results in flight at once are made once (the pipeline coalesces the download,
/// decode and processing; this coalesces the encoding), and each result is kept in the result
/// cache under a key made of the options and the source.
final class ImageService: Sendable {
    let settings: ServerSettings
    let pipeline: ImagePipeline
    let signer: URLSigner
    let gate: AdmissionGate
    let metrics: ServerMetrics
    private let results: ResultCache
    private let encodings: SingleFlightLoader<ResultJob, EncodedResult>
    /// The CPU work after the pipeline (encoding a result, `/info`'s colours), on worker
    /// threads off the cooperative pool, at most `settings.workers` at once.
    let encodingQueue: WorkQueue
    /// Reads `local:///path` sources under ``ServerSettings/localRoot``; `nil` when none is set.
    let localLoader: RootedFileLoader?
    /// Downloaded sources waiting for a worker and decodes' pixels (``ServerSettings/memoryBudget``).
    let memoryBudget: MemoryBudget
    /// Downloads `--watermark-url` with the sources' limits and guard.
    let httpLoader: AsyncHTTPClientDataLoader
    /// The decoded watermark (``reloadWatermark()``); `nil` until loaded or when none is set.
    let watermark = Locked<LoadedWatermark?>(nil)
    /// The fallback image (``loadFallbackImage()``); `nil` until loaded or when none is set.
    let fallbackImage = Locked<FallbackImage?>(nil)
    /// The one warning when thumbor's `smart` has no OpenCV.
    let smartDetection: SmartDetectionReport
    /// The answers' validators and the conditions sent on to origins.
    let validatorPolicy: ValidatorPolicy

    init(settings: ServerSettings, metrics: ServerMetrics, logger: Logger) throws {
        self.settings = settings
        self.metrics = metrics
        validatorPolicy = ValidatorPolicy(settings: settings)
        smartDetection = SmartDetectionReport(logger: logger)
        memoryBudget = MemoryBudget(limit: settings.memoryBudget)
        let limits = HTTPLoadingLimits(maximumBodySize: settings.maximumSourceBytes, connectTimeout: min(settings.downloadTimeout, .seconds(10)),
                                       totalTimeout: settings.downloadTimeout)
        let loader = AsyncHTTPClientDataLoader(limits: limits, addressPolicy: settings.addressPolicy)
        httpLoader = loader
        var sourceCache: DiskCache?
        var resultDisk: DiskCache?
        if let folder = settings.cacheDirectory {
            sourceCache = try DiskCache(directory: folder.appendingPathComponent("sources"),
                                        configuration: .init(sizeLimit: settings.diskLimit))
            resultDisk = try DiskCache(directory: folder.appendingPathComponent("results"),
                                       configuration: .init(sizeLimit: settings.diskLimit))
        }
        let storage = try settings.resultStorage.map { place throws(SettingsError) in
            ResultStorage(place: place, configuration: try settings.s3.configuration(), limits: limits, logger: logger) { outcome in
                metrics.countResultStorage(outcome)
            }
        }
        results = ResultCache(memoryLimit: settings.resultMemoryLimit, disk: resultDisk, storage: storage, logger: logger)
        var configuration = ImagePipeline.Configuration(dataCache: sourceCache, dataLoader: RetryingDataLoader(loader))
        localLoader = settings.localRoot.map { RootedFileLoader(fileSystem: $0, maximumSize: settings.maximumSourceBytes) }
        if let localLoader { configuration.localDataLoader = localLoader }
        if settings.s3.isEnabled {
            // The same limits and retries as HTTP sources; the endpoint is the operator's, so
            // not held to the sources' address policy.
            configuration.s3DataLoader = RetryingDataLoader(S3DataLoader(configuration: try settings.s3.configuration(), limits: limits))
        }
        // imgproxy's rule: the frames kept times the canvas may not pass the source pixel limit
        // (checked from the header, before a frame is decoded).
        configuration.decodingLimits = DecodingLimits(maxPixelCount: settings.maximumSourcePixels,
                                                      maxFrameCount: max(1_000, settings.maximumAnimationFrames),
                                                      maxTotalPixelCount: settings.maximumSourcePixels)
        // A result is kept for --ttl (a year by default) in the result cache, nginx and CDNs:
        // made from a stale source, it would outlive the source's own staleness windows by far.
        configuration.staleWhileRevalidate = .never
        configuration.staleIfError = .never
        configuration.maximumConcurrentProcessing = settings.workers
        configuration.memoryBudget = memoryBudget
        configuration.maximumConcurrentDataLoads = max(6, settings.workers * 2)
        configuration.isMemoryCacheEnabled = settings.memoryLimit > 0
        configuration.memoryCacheCostLimit = settings.memoryLimit
        var pipelineLogger = logger
        pipelineLogger.logLevel = .error
        configuration.logger = pipelineLogger
        pipeline = ImagePipeline(configuration: configuration)
        signer = URLSigner(pairs: settings.keys, size: settings.signatureSize)
        gate = AdmissionGate(workers: settings.workers, queueLength: settings.queueLength)
        encodingQueue = WorkQueue(maximumConcurrency: settings.workers)
        let owner = EncodingOwner()
        // Its callers are request handlers, off every actor: a load starts on the handler's thread.
        encodings = SingleFlightLoader(memoryCache: nil, loadStart: .inlineOffActors) { key, priority in
            try await owner.make(key, priority: priority)
        }
        owner.service.withLock { $0 = Weak(service: self) }
    }

    // MARK: - Requests

    /// What one image request resolved to before any work: the checked URL and options.
    struct Plan: Sendable {
        var url: URL
        var options: ProcessingOptions
        /// How the result's format and quality are chosen once the image is known
        /// (``outputChoice(_:accept:)``).
        var output: OutputChoice
        /// The answer's `Vary`, as imgproxy's: `Accept` whenever the server negotiates or enforces
        /// a format (``ServerSettings/variesWithAccept``), whatever the URL names, and the client
        /// hints' headers when it reads them; `nil` for neither.
        var vary: String?
        /// Names the result (options + source + format decision, and a local file's version),
        /// not the signature.
        var resultKey: String
        /// A local source's modification time (`Last-Modified`); `nil` for remote sources.
        var lastModified: Date?
        /// What the pipeline request is made of (``request``).
        var watermark: ImageProcessors.Watermark?
        var cost: RequestCostCheck
        var maximumFrames: Int
        var resultLimit: Int
        /// A local source's pipeline key, which carries its version.
        var pipelineKey: String?
        /// A local source's own `ETag`, made from its version (imgproxy's for local files,
        /// answered with ``ETagMode/origin``); `nil` for other sources and in the other modes,
        /// which do not answer it (a digest per request that no answer carries).
        var localETag: String?
        /// The source's bytes when the service had them from the origin itself (``ETagMode/origin``
        /// or ``LastModifiedMode/origin``: ``ImageService/askOrigin(_:conditions:arrival:)``),
        /// given to the pipeline in place of the URL; `nil` for the pipeline to load the URL.
        var source: ImageRequest.Source?
        /// A thumbor `meta/` URL: answered with thumbor's JSON of the operations, not the image.
        var thumborMeta = false
        /// Why a local source cannot be had (missing, unreadable, too large), when the fallback
        /// image answers for it (``ImageService/fallbackStandsIn(forLocal:)``): the work then
        /// makes the fallback image without loading anything.
        var missingSource: ServiceError?

        /// What the pipeline is asked for. Made when the result has to be: a result already in
        /// the result cache needs none, and the processors' identifiers are text made anew
        /// each time.
        var request: ImageRequest { request(thumborMarks: []) }

        /// ``request`` with the marks thumbor's `watermark` filters draw, loaded
        /// (``ImageService/thumborMarks(for:)``).
        func request(thumborMarks: [any ImageProcessing]) -> ImageRequest {
            var request = ImageService.imageRequest(url: url, options: options, resultLimit: resultLimit, watermark: watermark, cost: cost,
                                                    thumborMarks: thumborMarks)
            if let pipelineKey { request.cacheKey = pipelineKey }
            if let source { request.source = source }
            request.maximumFrames = maximumFrames
            return request
        }
    }

    /// Checks the URL (signature, expiry, source, limits) and plans the work; throws the
    /// service's answer for anything wrong.
    func plan(path: String, accept: String?, hints: ClientHints? = nil, now: Date = Date()) throws(ServiceError) -> Plan {
        let parsed = try parse(path: path, hints: settings.readsClientHints ? hints : nil)
        var options = parsed.options
        try check(&options, now: now)
        let (url, local, missing) = try sourceOrFallback(parsed.source)
        let output = outputChoice(options, accept: accept)
        let formatDecision = output.formatKey
        let version = local.map { "\nv=" + $0.version } ?? ""
        let mark = watermarkStep(for: options)
        // The step's identifier: the mark's digest and the opacity after the server's factor,
        // so a changed image or --watermark-opacity is a new result even in the disk cache.
        let markKey = mark.map { ";" + $0.identifier } ?? ""
        let resultKey = Self.digest("\(parsed.source)\(version)\n\(options.resultKey)\(markKey);f=\(formatDecision)")
        // Frames are decoded only for a result that can keep them.
        let frames = output.mayKeepFrames ? options.maxAnimationFrames ?? 1 : 1
        let cost = RequestCostCheck(options: options, format: output.likelyFormat, watermark: mark, maximumFrames: frames, settings: settings)
        return Plan(url: url, options: options, output: output, vary: settings.vary, resultKey: resultKey,
                    lastModified: local?.attributes.modified,
                    watermark: mark, cost: cost, maximumFrames: frames, resultLimit: settings.maximumResultDimension,
                    pipelineKey: local?.pipelineKey,
                    localETag: validatorPolicy.etag != .origin ? nil : local.map { "\"" + Hex.string(Digest.sha256(utf8: $0.pipelineKey).prefix(16)) + "\"" },
                    thumborMeta: parsed.meta, missingSource: missing)
    }

    /// ``sourceURL(_:)``, or for a local source the fallback image answers for, the failure
    /// it answers for (and a URL never loaded).
    private func sourceOrFallback(_ source: String) throws(ServiceError) -> (url: URL, local: LocalSource?, missing: ServiceError?) {
        do {
            let (url, local) = try sourceURL(source)
            return (url, local, nil)
        } catch where LocalSource.isLocal(source) && fallbackStandsIn(forLocal: error) {
            return (URL(fileURLWithPath: "/"), nil, error)
        }
    }

    /// The URL the pipeline loads for a source as the client named it: a local file under the
    /// local root (with what it is now), an S3 object (`S3Source`), or an http(s) URL the
    /// source policy allows.
    func sourceURL(_ source: String) throws(ServiceError) -> (url: URL, local: LocalSource?) {
        if S3Source.isS3(source) { return (try S3Source.check(source, settings: settings), nil) }
        guard LocalSource.isLocal(source) else { return (try settings.sources.check(source), nil) }
        let local = try LocalSource(source, loader: localLoader, policy: settings.sources)
        return (local.url, local)
    }

    /// Checks parsed options against the server's limits and the clock (expiry), and fills in
    /// the server's defaults: the same for a URL's options and a batch item's.
    func check(_ options: inout ProcessingOptions, now: Date = Date()) throws(ServiceError) {
        // imgproxy's rule: a time of 0 or before 1970 sets no expiry.
        if let expires = options.expires, expires > 0, Double(expires) < now.timeIntervalSince1970 { throw .expired }
        let box = options.scaledBox
        let thumborSide = options.thumbor.map { max($0.width.pixels, $0.height.pixels) } ?? 0
        guard max(box.width, box.height, thumborSide) <= settings.maximumResultDimension else {
            throw .badOption("the result would exceed \(settings.maximumResultDimension) pixels per side")
        }
        // thumbor writes no SVG: its `format` filter keeps the negotiated format for a name it cannot write.
        if options.thumbor != nil, options.format == .svg { options.format = nil }
        options.maxAnimationFrames = min(options.maxAnimationFrames ?? settings.maximumAnimationFrames, settings.maximumAnimationFrames)
        // One form per result for the result key: upright is the default's `nil`, whatever said it.
        options.autoRotate = (options.autoRotate ?? settings.autoRotates) ? nil : false
        options.enforceThumbnail = (options.enforceThumbnail ?? settings.enforcesThumbnail) ? true : nil
        // Likewise 8 bits, the default, is `nil`, whatever said it.
        options.preserveHDR = (options.preserveHDR ?? settings.preservesHDR) ? true : nil
        resolveQualities(&options)
    }

    /// Replaces the URL's `quality` and `format_quality` with the quality each lossy format
    /// will get (``ResultEncoder/quality(for:options:settings:)``), in one canonical form for
    /// the result key: one `quality` when the formats agree (`q:80`, `fq:jpeg:80` and nothing
    /// at all share a result when the server's default is 80), else every format's.
    func resolveQualities(_ options: inout ProcessingOptions) {
        let formats = ImageFormat.allCases.filter(\.isLossy)
        let qualities = formats.map { ResultEncoder.quality(for: $0, options: options, settings: settings) }
        if Set(qualities).count == 1 {
            options.quality = qualities[0]
            options.formatQuality = [:]
        } else {
            options.quality = nil
            options.formatQuality = Dictionary(uniqueKeysWithValues: zip(formats, qualities))
        }
    }

    /// A path in either dialect (``ThumborURL/isThumborPath(_:)`` decides which), parsed and its
    /// signature checked: the options and the source, whatever the dialect. `hints` are the
    /// client's, for an imgproxy URL's defaults (thumbor has none).
    func parse(path: String, hints: ClientHints? = nil) throws(ServiceError) -> (options: ProcessingOptions, source: String, meta: Bool) {
        if ThumborURL.isThumborPath(path, imgproxySignatureLength: settings.servesImgproxyURLs ? signer.encodedLength : nil) {
            guard settings.servesThumborURLs else { throw .badSignature("this server does not serve thumbor URLs") }
            let parsed = try ThumborURL(path: path)
            if let signature = parsed.signature {
                guard let key = settings.thumborSecurityKey else { throw .badSignature("this server has no thumbor security key") }
                guard ThumborSigner(key: key).isValid(signature: signature, for: parsed.signedPath) else {
                    throw .badSignature("invalid thumbor signature")
                }
            } else if !settings.thumborAllowsUnsafe {
                throw .badSignature("this server does not serve thumbor's unsafe URLs")
            }
            return (parsed.options, parsed.source, parsed.meta)
        }
        guard settings.servesImgproxyURLs else { throw .badURL("this server serves thumbor URLs only (/unsafe/… or /<signature>/…)") }
        let parsed = try ImgproxyURL(path: path, presets: settings.presets, onlyPresets: settings.onlyPresets, parsing: settings.urlParsing,
                                     defaults: hints?.defaults ?? ProcessingOptions())
        try authorize(signature: parsed.signature, path: parsed.signedPath)
        return (parsed.options, parsed.source, false)
    }

    /// Checks a signature: any configured pair, else `insecure`/`_` when unsigned URLs are
    /// allowed.
    func authorize(signature: String, path: String) throws(ServiceError) {
        if settings.keys.isEmpty {
            guard settings.allowsUnsigned else { throw .badSignature("this server has no signing key and does not serve unsigned URLs") }
            guard signature == "insecure" || signature == "_" else {
                throw .badSignature("this server serves unsigned URLs only ('insecure' or '_')")
            }
            return
        }
        guard signer.isValid(signature: signature, for: path) else { throw .badSignature("invalid signature") }
    }

    /// Makes the result for `plan` (coalesced with identical requests in flight), for a request
    /// that found nothing in the result cache (``cachedResult(for:)``, its one lookup).
    ///
    /// - Parameter arrival: the request's place in line (``AdmissionGate``), a new one when
    ///   `nil`; its work is served in that order at every stage, shared work at its earliest
    ///   requester's place.
    func makeResult(for plan: Plan, arrival: UInt64? = nil) async throws -> EncodedResult {
        let priority = LoadPriority(.medium, arrival: arrival ?? gate.takeArrival())
        return try await encodings.value(for: ResultJob(plan: plan), priority: priority)
    }

    /// A cached result if there is one (answered without admission or work).
    func cachedResult(for plan: Plan) -> EncodedResult? {
        guard let cached = results.result(forKey: plan.resultKey) else { return nil }
        metrics.resultCacheHits.increment()
        return cached
    }

    /// Makes the result: pipeline, then the encoder off the cooperative pool.
    fileprivate func make(_ job: ResultJob, priority: LoadPriority) async throws -> EncodedResult {
        let plan = job.plan
        if plan.missingSource == nil, plan.options.raw || !plan.options.skipProcessing.isEmpty, let source = try await passthrough(plan) {
            return source
        }
        // Made once per cluster: another instance may have made it.
        if plan.missingSource == nil, let stored = await results.storedResult(forKey: plan.resultKey) { return stored }
        // Only an SVG source answers a URL naming SVG, and it is not drawn.
        if plan.options.format == .svg, answersSVG(plan), let svg = try await svgResult(plan) { return store(svg, for: plan) }
        let start = ContinuousClock.now
        let marks = plan.options.thumborWatermarks.isEmpty && plan.options.thumborFrames.isEmpty ? [] : try await thumborMarks(for: plan.options)
        let request = plan.request(thumborMarks: marks)
        let response: ImageResponse
        // The failure a fallback image answers for: the result is then the fallback's, kept nowhere.
        var failure = plan.missingSource
        if let missing = plan.missingSource {
            guard let fallback = fallbackImage.withLock({ $0 }) else { throw missing }
            response = try await pipeline.image(for: fallback.request(like: request), priority: priority)
        } else {
            do {
                response = try await pipeline.image(for: request, priority: priority)
            } catch {
                guard let fallback = fallbackImage(standingInFor: error) else { throw error }
                failure = ServiceError.from(error)
                response = try await pipeline.image(for: fallback.request(like: request), priority: priority)
            }
        }
        metrics.record(stage: "pipeline", since: start)
        if plan.options.thumbor?.smart == true { smartDetection.noteSmartRequest() }
        let timings = response.timings
        if let load = timings.dataLoad { metrics.stageDuration("download", load) }
        if let decode = timings.decode { metrics.stageDuration("decode", decode) }
        if let processing = timings.processing { metrics.stageDuration("process", processing) }
        // What the pipeline's time does not spend in a stage it spent waiting for a slot
        // (network, decode or processing); the encoder's wait is added below.
        let working = [timings.dataLoad, timings.decode, timings.processing].compactMap { $0 }.reduce(Duration.zero, +)
        var waited = timings.total > working ? timings.total - working : .zero
        let container = response.container
        // An SVG source is known once loaded: answered as itself when the URL names no format.
        if failure == nil, container.metadata.format == .svg, answersSVG(plan), let svg = try await svgResult(plan) { return store(svg, for: plan) }
        let encodeQueued = ContinuousClock.now
        // On a worker thread, bounded by the queue; a worker that finishes runs the next waiting
        // encode itself (`runOffPool`), without a round trip through the cooperative pool. The
        // transparency scan reads every pixel, so it runs there too, never on the pool.
        let (result, encodeStart) = try await encodingQueue.runOffPool(priority: priority) { [memoryBudget = self.memoryBudget] in
            let encodeStart = ContinuousClock.now
            // Asked once: the format choice and JPEG's flattening both need it.
            let transparent = container.bitmap.hasTransparency
            let output = plan.output.decide(source: container.metadata.format, transparent: transparent,
                                            animated: !container.laterFrames.isEmpty)
            // The encoder's buffers and output count against the memory budget while it runs.
            let frames = output.format.animates ? container.laterFrames.count + 1 : 1
            let buffers = memoryBudget.reserveNow(Int(Double(container.bitmap.width * container.bitmap.height * frames)
                                                      * RequestCost.encodeBytes(output.format)))
            defer { buffers.release() }
            let encoder = ResultEncoder(output: output, maxBytes: plan.options.maxBytes,
                                        keepsGrey: ResultEncoder.keepsGrey(source: container.metadata, options: plan.options),
                                        keepsDeepSamples: ResultEncoder.keepsDeepSamples(options: plan.options))
            let encoded = try encoder.encode(container.frames, loopCount: container.metadata.loopCount ?? 0, transparent: transparent,
                                             flattened: plan.options.background != nil)
            return (EncodedResult(data: encoded, format: output.format), encodeStart)
        }
        let encodeTime = encodeStart.duration(to: .now)
        metrics.stageDuration("encode", encodeTime)
        waited += encodeQueued.duration(to: encodeStart)
        metrics.stageDuration("queue", waited)
        var timed = result
        let stages: [(String, Duration?)] = [("queue", waited), ("download", timings.dataLoad), ("decode", timings.decode),
                                             ("process", timings.processing), ("encode", encodeTime)]
        timed.timing.entries = stages.compactMap { name, duration in duration.map { ServerTiming.Entry(name: name, duration: $0) } }
        if let failure {
            timed.fallbackFor = failure
            return timed
        }
        return store(timed, for: plan)
    }

    /// Keeps `result` in the result cache under the plan's key, for `--ttl`.
    private func store(_ result: EncodedResult, for plan: Plan) -> EncodedResult {
        results.store(result, forKey: plan.resultKey, timeToLive: settings.timeToLive)
        return result
    }

    /// Returns once what both disk caches (sources and results) were handed is written: the
    /// last step of a graceful shutdown.
    func flushCaches() async {
        await pipeline.flushDataCache()
        await results.flush()
    }

    // MARK: - Mapping

    /// The pipeline request for `options`: a thumbnail decode when the result is a plain fit
    /// into a square box (JPEG shrinks in the DCT); else imgproxy's geometry as one processor,
    /// filters inside it (imgproxy filters before extending and padding), which has the
    /// pipeline decode a JPEG at the smallest scale its result needs; then the background, then
    /// the watermark. A thumbor URL's filters run inside its geometry step, after the transform and
    /// before `fill`'s canvas: imgproxy's twins, then thumbor's own in the URL's order, then the
    /// marks of its `watermark` filters (`thumborMarks`, loaded before). With `cost`, a request that some source the server accepts could take
    /// over the cost limit always gets the geometry, which checks it from the source's header.
    static func imageRequest(url: URL, options: ProcessingOptions,
                             resultLimit: Int = ServerSettings().maximumResultDimension, watermark: ImageProcessors.Watermark? = nil,
                             cost: RequestCostCheck? = nil, thumborMarks: [any ImageProcessing] = []) -> ImageRequest {
        let filters = options.filters
        var thumbnail: Int?
        var processors: [any ImageProcessing] = []
        if let thumbor = options.thumbor {
            var step = ThumborGeometryStep(geometry: thumbor, rotate: options.rotate, filters: filters + options.thumborFilters.steps + thumborMarks,
                                           resultLimit: resultLimit)
            if let cost, !cost.passesEverySource(step) { step.cost = cost }
            processors.append(step)
        } else {
            var geometry = ImgproxyGeometry(options: options, filters: filters, resultLimit: resultLimit)
            if let cost, !cost.passesEverySource(geometry) { geometry.cost = cost }
            // The geometry step checks the source (its cost, the URL's own limits) from its header.
            let checksSource = geometry.cost != nil || !options.sourceLimits.isEmpty
            if let box = options.plainFitBox, box.width == box.height, !checksSource {
                // In a square box the longest side binds; in any other, the geometry finds the
                // side that does.
                thumbnail = box.width
                processors += filters
            } else if options.changesGeometry || checksSource {
                processors.append(geometry)
            } else {
                processors += filters
            }
        }
        if let background = options.background { processors.append(ImageProcessors.Flatten(background: background)) }
        // imgproxy draws the watermark last, after the background.
        if let watermark { processors.append(watermark) }
        var request = ImageRequest(url: url, thumbnail: thumbnail, processors: processors)
        request.appliesOrientation = options.autoRotate ?? true
        request.usesEmbeddedThumbnail = options.enforceThumbnail ?? false
        request.keepsDeepSamples = ResultEncoder.keepsDeepSamples(options: options)
        return request
    }

    /// How a request's result gets its format and quality, imgproxy's rule: each format the
    /// server negotiates or enforces and `Accept` lists, best first (JPEG XL, AVIF, WebP; the
    /// first two skipped for an animation), is taken when the URL names no format, and an
    /// enforced one even when it does (but not over SVG, which only an SVG source answers);
    /// else the URL's format, else the source's rule. Each lossy format at the quality `options`
    /// (checked, so its qualities resolved) and the settings give it
    /// (``ResultEncoder/quality(for:options:settings:)``).
    func outputChoice(_ options: ProcessingOptions, accept: String?) -> OutputChoice {
        var accepted: [ImageFormat] = [], enforced: [ImageFormat] = []
        let switches: [(format: ImageFormat, negotiates: Bool, enforces: Bool)] = [
            (.jxl, settings.negotiatesJXL, settings.enforcesJXL),
            (.avif, settings.negotiatesAVIF, settings.enforcesAVIF),
            (.webp, settings.negotiatesWebP, settings.enforcesWebP),
        ]
        if let accept {
            for entry in switches where (entry.negotiates || entry.enforces) && Self.accepts(accept, entry.format.mimeType) {
                accepted.append(entry.format)
                if entry.enforces { enforced.append(entry.format) }
            }
        }
        let named = options.format
        let qualities = ImageFormat.allCases.filter(\.isLossy).map { ($0, ResultEncoder.quality(for: $0, options: options, settings: settings)) }
        return OutputChoice(named: named, accepted: named == nil ? accepted : [], enforced: named == nil || named == .svg ? [] : enforced,
                            quality: settings.defaultQuality, qualities: Dictionary(uniqueKeysWithValues: qualities))
    }

    /// Whether an `Accept` header lists `type` (with a non-zero quality).
    static func accepts(_ accept: String, _ type: String) -> Bool {
        accept.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard parts.first == type else { return false }
            return !parts.dropFirst().contains { $0 == "q=0" || $0 == "q=0.0" || $0 == "q=0.00" || $0 == "q=0.000" }
        }
    }

    static func digest(_ text: String) -> String {
        Hex.string(Digest.sha256(utf8: text))
    }
}

/// The encoding stage's load reaches the service weakly (the service owns the stage).
private final class EncodingOwner: Sendable {
    let service = Locked(Weak())

    func make(_ job: ResultJob, priority: LoadPriority) async throws -> EncodedResult {
        guard let service = service.withLock({ $0.service }) else { throw CancellationError() }
        return try await service.make(job, priority: priority)
    }
}

private struct Weak {
    weak var service: ImageService?
}

/// A result to make, equal to another when their result keys are: what the encoding stage
/// coalesces by, carrying the first caller's plan to the load.
struct ResultJob: Hashable, Sendable {
    let plan: ImageService.Plan

    static func == (lhs: ResultJob, rhs: ResultJob) -> Bool { lhs.plan.resultKey == rhs.plan.resultKey }
    func hash(into hasher: inout Hasher) { hasher.combine(plan.resultKey) }
}

import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading

/// The data stage, the bottom of a request's path: bytes the request carries or its provider
/// makes, a local file or data URL, else the disk cache (fresh, or revalidated with the server)
/// or the network, stored through the disk cache's writer. One load per data key and cache
/// policy, however many requests wait for it (so one provider call).
package final class DataStage: Sendable {
    /// The data's loads, shared by every image request for the data.
    let loader: SingleFlightLoader<StageKey, FetchedData>
    /// ``ImagePipeline/data(for:)``'s requests over `loader`: they share it, so their failure is
    /// logged once too — and not by `loader`, which image requests share as well.
    let requestLoader: SingleFlightLoader<StageKey, FetchedData>

    /// Revalidations of stale copies answered at once, running in the background.
    let revalidations = BackgroundRevalidations()

    init(context: StageContext, networkQueue: WorkQueue, progressObservers: DataLoadObservers<DataLoadingProgress>,
         previewers: DataLoadObservers<ProgressivePreviewer>) {
        let work = Work(context: context, networkQueue: networkQueue, progressObservers: progressObservers, previewers: previewers,
                        revalidations: revalidations)
        // Its callers are other stages' loads (the decode stage's, the request loader's): a load
        // starts on their thread.
        let loader = SingleFlightLoader<StageKey, FetchedData>(memoryCache: nil, loadStart: .inline) { key, priority in
            try await work.data(for: key, priority: priority)
        }
        self.loader = loader
        requestLoader = SingleFlightLoader(memoryCache: nil) { key, priority in
            do {
                return try await loader.stageValue(for: key, priority: priority)
            } catch let error as ImagePipelineError {
                context.logFailure(error, key: key.image.dataKey)
                throw error
            }
        }
    }

    /// The data `key` names (its ``ImagePipeline/StageKey/data`` form), for the decode stage.
    nonisolated(nonsending)
    func data(for key: StageKey, priority: LoadPriority) async throws -> FetchedData {
        try await loader.stageValue(for: key, priority: priority)
    }

    /// The data for a ``ImagePipeline/data(for:)`` request, its failure logged once.
    nonisolated(nonsending)
    func dataForDataRequest(_ key: StageKey, priority: LoadPriority) async throws -> FetchedData {
        try await requestLoader.stageValue(for: key, priority: priority)
    }

    /// Refuses downloaded data that does not start like an image the decoder reads, from its
    /// signature: the header is read once, by the decode (package-visible for the benchmarks'
    /// instruction counts). Data that starts like an image but does not decode is stored, then
    /// removed from the disk cache by the decode stage.
    package static func checkDownloadedImage(_ data: Data, decoder: any ImageDecoding) throws {
        guard decoder.recognizes(data) else { throw ImagePipelineError.decodingFailed(ImageCodecError.unrecognizedFormat) }
    }

    /// The stage's work, apart from its loader so the loader's load can hold it.
    private struct Work: Sendable {
        let context: StageContext
        /// Bounds HTTP loads and orders them by priority.
        let networkQueue: WorkQueue
        let progressObservers: DataLoadObservers<DataLoadingProgress>
        /// The tasks making progressive previews of a download, by data key.
        let previewers: DataLoadObservers<ProgressivePreviewer>
        let revalidations: BackgroundRevalidations

        /// The data for `key`: disk cache (fresh, or revalidated with the server), network, or a
        /// local file.
        func data(for key: StageKey, priority: LoadPriority) async throws -> FetchedData {
            context.recorder.record(.dataLoads)
            let fetched = try await dataFromSource(key, priority: priority)
            context.logger.debug("data loaded", metadata: [
                "key": "\(key.image.dataKey)", "stage": "data", "origin": "\(fetched.origin)",
                "bytes": "\(fetched.data.count)", "revalidated": "\(fetched.isRevalidated)", "duration": "\(fetched.duration)",
            ])
            return fetched
        }

        /// Bytes the request carries or its provider makes; a local file or data URL through the
        /// local loader; http(s) and s3 through ``httpData(_:request:priority:start:)``.
        private func dataFromSource(_ key: StageKey, priority: LoadPriority) async throws -> FetchedData {
            let start = ContinuousClock.now
            let request: DataRequest
            switch key.source {
            case .data(_, let data):
                return FetchedData(data: data, origin: .provided, isRevalidated: false, duration: start.duration(to: .now))
            case .provider(_, let provider):
                // Making the data is loading it, which this policy forbids.
                guard key.cachePolicy != .returnCacheDataDontLoad else { throw ImagePipelineError.notCached }
                return FetchedData(data: try await providedData(provider), origin: .provided, isRevalidated: false,
                                   duration: start.duration(to: .now))
            case .url(let urlRequest):
                request = urlRequest
            }
            switch request.url.scheme?.lowercased() {
            case "file", "data":
                let local = DataRequest(url: request.url)
                let response = try await dataResponse(from: context.configuration.localDataLoader, for: key, request: local)
                context.recorder.record(.localLoads)
                return FetchedData(data: response.data, origin: .file, isRevalidated: false, duration: start.duration(to: .now))
            case "http", "https":
                return try await httpData(key, request: request, priority: priority, start: start)
            case "s3" where context.configuration.s3DataLoader != nil:
                return try await httpData(key, request: request, priority: priority, start: start)
            default:
                throw ImagePipelineError.dataLoadingFailed(DataLoadingError.unsupportedScheme(request.url.scheme ?? ""))
            }
        }

        /// What `provider` makes; what it throws fails the load as a loading failure.
        private func providedData(_ provider: @Sendable () async throws -> Data) async throws -> Data {
            do {
                return try await provider()
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ImagePipelineError.dataLoadingFailed(error)
            }
        }

        /// The disk cache's copy when it may serve — fresh, or stale within the request's and the
        /// server's windows (``ImageRequest/StalePolicy``) — else the network (a conditional
        /// request when the copy has validators), refusing data that is not an image before it is
        /// stored.
        private func httpData(_ key: StageKey, request: DataRequest, priority: LoadPriority, start: ContinuousClock.Instant) async throws -> FetchedData {
            let readsCache = key.cachePolicy != .reloadIgnoringCaches && !key.cacheUse.options.contains(.skipDataCacheRead)
            let cached = readsCache ? cachedEntry(forKey: key.image.dataKey) : nil
            switch key.cachePolicy {
            case .returnCacheDataDontLoad:
                guard let cached else { throw ImagePipelineError.notCached }
                context.recorder.record(.diskHits)
                return FetchedData(data: cached.data, origin: .disk, isRevalidated: false, duration: start.duration(to: .now))
            case .useCache:
                if let cached, !cached.isExpired {
                    context.recorder.record(.diskHits)
                    return FetchedData(data: cached.data, origin: .disk, isRevalidated: false, duration: start.duration(to: .now))
                }
                if let cached, let answer = answerWhileRevalidating(cached, key: key, request: request, priority: priority, start: start) {
                    return answer
                }
            case .revalidate, .reloadIgnoringCaches:
                break
            }
            guard let cached, readsCache else {
                return try await refresh(key, request: request, cached: cached, priority: priority)
            }
            do {
                return try await refresh(key, request: request, cached: cached, priority: priority)
            } catch let error as ImagePipelineError where error.isNetworkFailure {
                let policy = key.staleUse.ifError ?? context.configuration.staleIfError
                guard let staleness = staleness(of: cached, under: policy, server: \.ifError, reason: .refreshFailed(error)) else { throw error }
                context.recorder.record(.diskHits)
                context.logger.debug("answering a stale copy: its refresh failed", metadata: [
                    "key": "\(key)", "age": "\(staleness.age)", "error": "\(error)",
                ])
                return FetchedData(data: cached.data, origin: .disk, isRevalidated: false, duration: start.duration(to: .now),
                                   stale: StaleAnswer(staleness: staleness, revalidation: nil))
            }
        }

        /// The stale `cached` copy at once, its revalidation started in the background (or
        /// joined, when one runs), if the request's and the server's windows allow; else `nil`.
        private func answerWhileRevalidating(
            _ cached: DiskCacheEntry, key: StageKey, request: DataRequest, priority: LoadPriority, start: ContinuousClock.Instant
        ) -> FetchedData? {
            let policy = key.staleUse.whileRevalidating ?? context.configuration.staleWhileRevalidate
            guard let staleness = staleness(of: cached, under: policy, server: \.whileRevalidating, reason: .revalidating) else { return nil }
            let revalidation = revalidations.revalidation(of: key.image.dataKey, priority: priority.value) { [self] in
                do {
                    let refreshed = try await refresh(key, request: request, cached: cached, priority: priority)
                    return refreshed.isRevalidated ? .notModified : .newData
                } catch {
                    // The copy stays, stale; the next request asks again.
                    context.logger.debug("background revalidation failed", metadata: ["key": "\(key)", "error": "\(error)"])
                    return .failed
                }
            }
            context.recorder.record(.diskHits)
            context.logger.debug("answering a stale copy while it is revalidated", metadata: ["key": "\(key)", "age": "\(staleness.age)"])
            return FetchedData(data: cached.data, origin: .disk, isRevalidated: false, duration: start.duration(to: .now),
                               stale: StaleAnswer(staleness: staleness, revalidation: revalidation))
        }

        /// How stale `cached` is, if `policy` and the server's permission stored with it (its
        /// window at `server`) allow answering it; else `nil`.
        private func staleness(
            of cached: DiskCacheEntry, under policy: ImageRequest.StalePolicy, server: KeyPath<HTTPStalePermission, TimeInterval?>,
            reason: ImageResponse.Staleness.Reason
        ) -> ImageResponse.Staleness? {
            guard let expiresAt = cached.expiresAt else { return nil }
            let permission = HTTPStalePermission(cacheControl: cached.userInfo.flatMap { String(data: $0, encoding: .utf8) })
            guard let window = policy.window(server: permission[keyPath: server], forbidden: permission.isForbidden) else { return nil }
            let now = context.configuration.now()
            let pastExpiry = max(0, now.timeIntervalSince(expiresAt))
            guard pastExpiry <= window else { return nil }
            return ImageResponse.Staleness(age: max(0, now.timeIntervalSince(cached.storedAt)), timePastExpiry: pastExpiry, reason: reason)
        }

        /// Asks the network for `key`'s data: conditionally when `cached` has validators (a
        /// `304` renews the copy's freshness and answers it), else a full download, stored.
        private func refresh(_ key: StageKey, request: DataRequest, cached: DiskCacheEntry?, priority: LoadPriority) async throws -> FetchedData {
            let dataKey = key.image.dataKey
            // A stale (or, for .revalidate, any) copy with validators is revalidated rather than
            // downloaded again; one without validators cannot be, and is replaced.
            var request = request
            var isConditional = false
            if let validators = cached?.validators {
                if let etag = validators.etag { request.headers["If-None-Match"] = etag }
                if let lastModified = validators.lastModified { request.headers["If-Modified-Since"] = lastModified }
                isConditional = validators.etag != nil || validators.lastModified != nil
            }
            let (response, downloadStart, reservation) = try await authorizedNetworkResponse(
                for: key, request: request, isConditional: isConditional, priority: priority)
            let receivedAt = context.configuration.now()
            let freshness = HTTPFreshness.of(response, receivedAt: receivedAt, defaultTimeToLive: context.configuration.defaultTimeToLive)

            if response.isNotModified {
                guard let cached, isConditional else {
                    throw ImagePipelineError.dataLoadingFailed(DataLoadingError.invalidResponse("304 Not Modified to an unconditional request"))
                }
                context.recorder.record(.notModified)
                if !key.cacheUse.options.contains(.skipDataCacheWrite) {
                    refreshCachedEntry(forKey: dataKey, freshness: capped(freshness, by: key.cacheUse.lifetime), response: response,
                                       previous: cached.validators)
                }
                context.logger.debug("revalidated", metadata: ["key": "\(key)"])
                return FetchedData(data: cached.data, origin: .disk, isRevalidated: true, duration: downloadStart.duration(to: .now))
            }

            context.recorder.record(.downloads)
            context.recorder.record(.bytesDownloaded, response.data.count)
            // Data that is not an image the decoder reads is refused here, before it is stored: a
            // server answering HTML as image/jpeg must leave nothing in the cache.
            try DataStage.checkDownloadedImage(response.data, decoder: context.configuration.decoder)
            if !key.cacheUse.options.contains(.skipDataCacheWrite) {
                storeData(response, forKey: dataKey, freshness: capped(freshness, by: key.cacheUse.lifetime))
            }
            reservation?.settle(to: response.data.count)
            return FetchedData(
                data: response.data, origin: .network, isRevalidated: false, duration: downloadStart.duration(to: .now),
                reservation: reservation)
        }

        /// `request` through the configuration's request modifier, if any: sent as it returns,
        /// and once more, as it returns when told why, after a `401 Unauthorized`.
        private func authorizedNetworkResponse(
            for key: StageKey, request: DataRequest, isConditional: Bool, priority: LoadPriority
        ) async throws -> (DataResponse, ContinuousClock.Instant, MemoryReservation?) {
            guard let modifier = context.configuration.requestModifier else {
                return try await networkResponse(for: key, request: request, isConditional: isConditional, priority: priority)
            }
            let modified = try await Self.modify(request, reason: .load, with: modifier)
            do {
                return try await networkResponse(for: key, request: modified, isConditional: isConditional, priority: priority)
            } catch ImagePipelineError.dataLoadingFailed(DataLoadingError.httpStatus(401, _, _)) {
                context.logger.debug("unauthorized: asking the request modifier again", metadata: ["key": "\(key)"])
                let retry = try await Self.modify(request, reason: .unauthorized, with: modifier)
                return try await networkResponse(for: key, request: retry, isConditional: isConditional, priority: priority)
            }
        }

        /// What the modifier returns for `request`; what it throws, as the pipeline's error.
        private static func modify(
            _ request: DataRequest, reason: ImagePipeline.RequestModifierReason, with modifier: ImagePipeline.RequestModifier
        ) async throws -> DataRequest {
            do {
                return try await modifier(request, reason)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ImagePipelineError.requestModifierFailed(error)
            }
        }

        /// One network load of `request` in a slot of the network queue, with its memory
        /// reserved: the response, when the download started (after the wait for the slot and
        /// the memory, the queue's time, not the download's) and the reservation.
        private func networkResponse(
            for key: StageKey, request: DataRequest, isConditional: Bool, priority: LoadPriority
        ) async throws -> (DataResponse, ContinuousClock.Instant, MemoryReservation?) {
            let onRetry = RetryObserver { [recorder = context.recorder, logger = context.logger] error, attempt, delay in
                recorder.record(.retries)
                logger.debug("retrying", metadata: ["key": "\(key)", "attempt": "\(attempt)", "delay": "\(delay)", "error": "\(error)"])
            }
            return try await RetryObserver.$current.withValue(onRetry) {
                try await networkQueue.run(priority: priority) {
                    // Skipped when every request for it was cancelled while it waited for a slot.
                    try Task.checkCancellation()
                    // Reserved in the slot (so at most a slot's worth of downloads can pass the
                    // budget by more than their estimate) and kept with the data until it is
                    // decoded: past the budget, downloads wait here, first come, first served,
                    // instead of piling sources up in memory.
                    let reservation = try await reserveMemoryForDownload(priority: priority)
                    let downloadStart = ContinuousClock.now
                    context.recorder.record(.networkRequests)
                    if isConditional { context.recorder.record(.revalidations) }
                    // The body as it arrives goes to the tasks making previews of it, if any.
                    let bodyObserver = BodyObserver { [previewers] body in previewers.notify(key) { $0.received(body) } }
                    let response = try await BodyObserver.$current.withValue(bodyObserver) {
                        try await dataResponse(from: networkLoader(for: request), for: key, request: request)
                    }
                    return (response, downloadStart, reservation)
                }
            }
        }

        /// The loader of a network request: the S3 loader for `s3://`, else the HTTP one.
        private func networkLoader(for request: DataRequest) -> any DataLoading {
            if request.url.scheme?.lowercased() == "s3", let s3 = context.configuration.s3DataLoader { return s3 }
            return context.configuration.dataLoader
        }

        /// Waits for the memory budget's share of one download (the usual size of recent ones, 1 MB
        /// before any), or returns `nil` without a budget.
        private func reserveMemoryForDownload(priority: LoadPriority) async throws -> MemoryReservation? {
            guard let budget = context.configuration.memoryBudget else { return nil }
            return try await budget.reserve(budget.typicalSize(fallback: 1 << 20), arrival: priority.arrival)
        }

        /// Loads with `loader`, reporting progress to the requests waiting for `key`'s data.
        private func dataResponse(from loader: any DataLoading, for key: StageKey, request: DataRequest) async throws -> DataResponse {
            let observers = progressObservers
            do {
                return try await loader.loadData(for: request) { received, expected in
                    observers.notify(key) { $0(received, expected) }
                }
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw ImagePipelineError.dataLoadingFailed(error)
            }
        }

        // MARK: Disk cache

        /// `freshness` ending no later than `lifetime` from now (a request's ``ImageRequest/cacheLifetime``).
        private func capped(_ freshness: HTTPFreshness, by lifetime: Duration?) -> HTTPFreshness {
            guard let lifetime else { return freshness }
            var capped = freshness
            let end = context.configuration.now().addingTimeInterval(lifetime.timeInterval)
            capped.expiresAt = min(freshness.expiresAt ?? end, end)
            return capped
        }

        /// The disk entry for `key`, stale or not (written or still staged).
        private func cachedEntry(forKey key: String) -> DiskCacheEntry? {
            context.dataCacheWriter?.entry(forKey: key)
        }

        private func storeData(_ response: DataResponse, forKey key: String, freshness: HTTPFreshness) {
            guard let dataCacheWriter = context.dataCacheWriter else { return }
            guard freshness.isStorable else {
                // The server forbids keeping this response: drop any older copy too.
                dataCacheWriter.remove(forKey: key)
                return
            }
            // The server's stale permission goes with the copy, for when it is stale.
            let permission = HTTPStalePermission(cacheControl: response.header("Cache-Control")).storedDirectives
            dataCacheWriter.store(response.data, forKey: key, expiry: DiskCacheExpiry(expiresAt: freshness.expiresAt),
                                  validators: Self.validators(of: response), userInfo: permission.isEmpty ? nil : Data(permission.utf8))
        }

        private func refreshCachedEntry(forKey key: String, freshness: HTTPFreshness, response: DataResponse, previous: DiskCacheValidators) {
            // A 304 may carry new validators; where it does not, the stored ones stay valid.
            var validators = Self.validators(of: response)
            validators.etag = validators.etag ?? previous.etag
            validators.lastModified = validators.lastModified ?? previous.lastModified
            context.dataCacheWriter?.markRevalidated(forKey: key, expiry: DiskCacheExpiry(expiresAt: freshness.expiresAt), validators: validators)
        }

        private static func validators(of response: DataResponse) -> DiskCacheValidators {
            DiskCacheValidators(etag: response.header("ETag"), lastModified: response.header("Last-Modified"))
        }
    }
}

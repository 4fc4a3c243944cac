import Foundation
import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeOrigin
import LoupeProcessing
import LoupeTestSupport
import Testing
@testable import Loupe

/// Requests as an app with authenticated or generated images makes them: headers and URL
/// request values, the request modifier (tokens, their refresh after a 401, its failure), cache
/// keys that keep answers for different credentials apart, and bytes or providers under an
/// identifier. Over real HTTP against the embedded origin, whose log of what it received each
/// test reads.
@Suite final class ImagePipelineRequestTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestDate()

    deinit { folder.remove() }

    /// What the origin received for one request.
    struct Received: Sendable, Equatable {
        var method: String
        var path: String
        var authorization: String?
        var accept: String?
    }

    /// An origin that logs every request into `log` and answers with `answer`.
    func withLoggingOrigin<Result>(
        _ log: Recorder<Received>, answer: @escaping @Sendable (OriginRequest) -> OriginResponse,
        _ body: (OriginServer) async throws -> Result
    ) async throws -> Result {
        try await OriginServer.run(handler: { request in
            log.record(Received(method: request.method, path: request.path, authorization: request.header("Authorization"),
                                accept: request.header("Accept")))
            return answer(request)
        }, body)
    }

    /// What one load of `/private.jpg` did with a modifier adding `Bearer <token>` (`token`
    /// chosen by the reason) against an origin that accepts `Bearer <accepted>` alone: what
    /// the origin received, why the modifier was called, and the response or the failure.
    func loadWithBearerModifier(
        accepting accepted: String, token: @escaping @Sendable (ImagePipeline.RequestModifierReason) -> String
    ) async throws -> (received: [Received], reasons: [ImagePipeline.RequestModifierReason], result: Result<ImageResponse, ImagePipelineError>) {
        let photo = try TestImage.jpeg(width: 64, height: 48, seed: 1)
        let log = Recorder<Received>()
        let reasons = Recorder<ImagePipeline.RequestModifierReason>()
        let result = try await withLoggingOrigin(log, answer: { $0.header("Authorization") == "Bearer \(accepted)" ? .ok(photo) : .status(401) }) { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date) {
                $0.requestModifier = { request, reason in
                    reasons.record(reason)
                    var request = request
                    request.headers["Authorization"] = "Bearer \(token(reason))"
                    return request
                }
            }
            do {
                return Result<ImageResponse, ImagePipelineError>.success(try await pipeline.image(for: origin.url("/private.jpg")))
            } catch let error as ImagePipelineError {
                return .failure(error)
            }
        }
        return (log.all, reasons.all, result)
    }

    // MARK: The request modifier

    @Test func aBearerTokenAddedByTheModifierReachesTheOrigin() async throws {
        let outcome = try await loadWithBearerModifier(accepting: "t1") { _ in "t1" }
        let response = try outcome.result.get()
        #expect(response.origin == .network)
        #expect(response.bitmap.width == 64 && response.bitmap.height == 48)
        #expect(outcome.received == [Received(method: "GET", path: "/private.jpg", authorization: "Bearer t1", accept: nil)])
        #expect(outcome.reasons == [.load])
    }

    @Test func aRefusedTokenIsRefreshedAndSentAgainAfterA401() async throws {
        let outcome = try await loadWithBearerModifier(accepting: "fresh") { $0 == .load ? "expired" : "fresh" }
        #expect(try outcome.result.get().origin == .network)
        #expect(outcome.received.map(\.authorization) == ["Bearer expired", "Bearer fresh"])
        #expect(outcome.reasons == [.load, .unauthorized])
    }

    @Test func aSecond401FailsTheRequestAfterOneRetry() async throws {
        let outcome = try await loadWithBearerModifier(accepting: "never given") { $0 == .load ? "expired" : "refused too" }
        guard case .failure(let refusal) = outcome.result else {
            Issue.record("loaded, expected a failure")
            return
        }
        #expect(refusal.reason == .httpStatus)
        #expect(ImageFailure(refusal).httpStatus == 401)
        #expect(outcome.received.map(\.authorization) == ["Bearer expired", "Bearer refused too"])
        #expect(outcome.reasons == [.load, .unauthorized])
    }

    @Test func aThrowingModifierFailsTheRequestWithATypedErrorAndCachesNothing() async throws {
        struct NoToken: Error {}
        let photo = try TestImage.jpeg(width: 64, height: 48, seed: 1)
        let log = Recorder<Received>()
        let calls = Counter()
        try await withLoggingOrigin(log, answer: { _ in .ok(photo) }) { origin in
            let (pipeline, disk) = try makePipeline(folder: folder, date: date) {
                $0.dataCachePolicy = .storeAll
                $0.requestModifier = { request, _ in
                    // The first call fails (the token store is locked, say); later ones succeed.
                    guard calls.increment() > 1 else { throw NoToken() }
                    return request
                }
            }
            let request = ImageRequest(url: origin.url("/private.jpg"), thumbnail: 32)
            let refusal = await failure(of: pipeline, request)
            guard case .requestModifierFailed(let underlying) = refusal else {
                Issue.record("expected requestModifierFailed, got \(String(describing: refusal))")
                return
            }
            #expect(underlying is NoToken)
            #expect(refusal?.reason == .other)
            #expect(log.all.isEmpty, "nothing was sent")
            #expect(pipeline.statistics.failures == ["other": 1])
            #expect(pipeline.memoryCacheUsage.count == 0)
            #expect(try disk.entry(forKey: request.imageKey.diskKey) == nil)
            // Nothing in memory or on disk, and the next request (the modifier now succeeding) loads.
            try await expectNothingCached(pipeline, disk, request, origin: origin, path: "/private.jpg")
            #expect(log.all.count == 1)
            #expect(pipeline.cachedImage(for: request) != nil)
        }
    }

    // MARK: Cache keys

    /// Two users' tokens, each answered with that user's own image: the answers are loaded and
    /// kept apart in memory, in the disk cache's data and in its processed images.
    @Test func requestsDifferingOnlyInAuthorizationAreCachedApart() async throws {
        let images = ["Bearer alice": try TestImage.jpeg(width: 80, height: 60, seed: 1),
                      "Bearer bob": try TestImage.jpeg(width: 80, height: 60, seed: 5)]
        let log = Recorder<Received>()
        func request(_ token: String, thumbnail: Int?, _ origin: OriginServer) -> ImageRequest {
            ImageRequest(urlRequest: DataRequest(url: origin.url("/me.jpg"), headers: ["Authorization": token]), thumbnail: thumbnail)
        }
        try await withLoggingOrigin(log, answer: { images[$0.header("Authorization") ?? ""].map { OriginResponse.ok($0) } ?? .status(401) }) { origin in
            // First run: both users' full-size images (their data) and thumbnails (processed).
            let (first, disk) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
            var fullSize: [String: Bitmap] = [:], thumbnails: [String: Bitmap] = [:]
            for token in images.keys {
                let full = try await first.image(for: request(token, thumbnail: nil, origin))
                #expect(full.origin == .network)
                fullSize[token] = full.bitmap
                let thumbnail = try await first.image(for: request(token, thumbnail: 40, origin))
                #expect(thumbnail.origin == .disk, "decoded from the data on disk")
                thumbnails[token] = thumbnail.bitmap
                #expect(try await first.image(for: request(token, thumbnail: nil, origin)).origin == .memory)
                let diskKey = request(token, thumbnail: 40, origin).imageKey.diskKey
                #expect(await eventually { first.dataCacheWriter?.entry(forKey: diskKey) != nil }, "encoded in the background")
            }
            let alice = try #require(fullSize["Bearer alice"]), bob = try #require(fullSize["Bearer bob"])
            #expect(PixelDifference(alice, bob).mean > 20, "the two users' images differ")
            #expect(log.all.count == 2)
            #expect(Set(log.all.compactMap(\.authorization)) == Set(images.keys))
            #expect(request("Bearer alice", thumbnail: nil, origin).dataKey != request("Bearer bob", thumbnail: nil, origin).dataKey)
            await first.flushDataCache()
            disk.close()

            // Second run on the same disk cache: each user gets their own data and processed image.
            let (second, _) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
            for token in images.keys {
                let thumbnail = try await second.image(for: request(token, thumbnail: 40, origin))
                #expect(thumbnail.origin == .disk)
                // The processed copy is a JPEG of the thumbnail: close to it, far from the other user's.
                // (Chroma subsampling on 40×30 strong gradients costs a few levels; the users' images
                // differ by far more.)
                #expect(PixelDifference(thumbnail.bitmap, try #require(thumbnails[token])).mean < 10)
                let other = try #require(thumbnails.first(where: { $0.key != token })?.value)
                #expect(PixelDifference(thumbnail.bitmap, other).mean > 30, "\(PixelDifference(thumbnail.bitmap, other).mean)")
            }
            #expect(second.statistics.dataLoads == 0, "the thumbnails came from their processed copies")
            for token in images.keys {
                let full = try await second.image(for: request(token, thumbnail: nil, origin))
                #expect(full.origin == .disk)
                #expect(PixelDifference(full.bitmap, try #require(fullSize[token])).maximum == 0, "\(token) gets their own data")
            }
            #expect(second.statistics.dataLoads == 2)
            #expect(log.all.count == 2, "nothing more was downloaded")
            await second.shutdown()
        }
    }

    @Test func aHeaderTheRequestSaysDoesNotChangeTheResponseSharesTheEntry() async throws {
        let photo = try TestImage.jpeg(width: 64, height: 48, seed: 1)
        let log = Recorder<Received>()
        try await withLoggingOrigin(log, answer: { _ in .ok(photo) }) { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            func request(trace: String) -> ImageRequest {
                ImageRequest(urlRequest: DataRequest(url: origin.url("/a.jpg"), headers: ["X-Trace": trace]),
                             headersIgnoredByCache: ["x-trace"])
            }
            #expect(try await pipeline.image(for: request(trace: "1")).origin == .network)
            #expect(try await pipeline.image(for: request(trace: "2")).origin == .memory)
            #expect(request(trace: "1").dataKey == origin.url("/a.jpg").absoluteString)
            // Without the declaration the header is part of the key: another entry, another load.
            let keyed = ImageRequest(urlRequest: DataRequest(url: origin.url("/a.jpg"), headers: ["X-Trace": "2"]))
            #expect(try await pipeline.image(for: keyed).origin == .network)
        }
        #expect(log.all.count == 2)
    }

    @Test func theCacheKeyHoldsADigestOfTheHeadersNotTheirValues() {
        let url = URL(string: "http://127.0.0.1/a.jpg")!
        let token = "Bearer secret-token-123"
        let key = ImageRequest(urlRequest: DataRequest(url: url, headers: ["Authorization": token])).dataKey
        #expect(!key.contains("secret-token-123"))
        #expect(key.hasPrefix(url.absoluteString + "\u{1F}loupe.request("))
        // Names are compared in any case; values are not.
        #expect(ImageRequest(urlRequest: DataRequest(url: url, headers: ["authorization": token])).dataKey == key)
        #expect(ImageRequest(urlRequest: DataRequest(url: url, headers: ["Authorization": token + "4"])).dataKey != key)
        // A header and another split differently are not one key.
        let joined = ImageRequest(urlRequest: DataRequest(url: url, headers: ["a": "b:c"])).dataKey
        let split = ImageRequest(urlRequest: DataRequest(url: url, headers: ["a:b": "c"])).dataKey
        #expect(joined != split)
        // A method other than GET is part of the key (any case); GET alone leaves the URL's key as it was.
        #expect(ImageRequest(urlRequest: DataRequest(url: url)).dataKey == url.absoluteString)
        #expect(ImageRequest(urlRequest: DataRequest(url: url, method: "get")).dataKey == url.absoluteString)
        let post = ImageRequest(urlRequest: DataRequest(url: url, method: "POST")).dataKey
        #expect(post != url.absoluteString && post == ImageRequest(urlRequest: DataRequest(url: url, method: "post")).dataKey)
        // Nothing of a method that is not a token reaches the key's text (which is logged).
        let injected = ImageRequest(urlRequest: DataRequest(url: url, method: "GET\r\nX-Forged: 1")).dataKey
        #expect(!injected.contains("\r") && !injected.contains("X-Forged"))
    }

    // MARK: URL request values

    @Test func aURLRequestsMethodAndHeadersReachTheOrigin() async throws {
        let photo = try TestImage.png(width: 30, height: 20, seed: 2)
        let log = Recorder<Received>()
        try await withLoggingOrigin(log, answer: { _ in .ok(photo, contentType: "image/png") }) { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            let urlRequest = DataRequest(url: origin.url("/render"), method: "POST", headers: ["Accept": "image/png"], timeout: .seconds(20))
            let response = try await pipeline.image(for: ImageRequest(urlRequest: urlRequest))
            #expect(response.bitmap.width == 30 && response.bitmap.height == 20)
        }
        #expect(log.all == [Received(method: "POST", path: "/render", authorization: nil, accept: "image/png")])
    }

    @Test func aURLRequestsTimeoutBoundsTheLoad() async throws {
        let photo = try TestImage.jpeg(width: 16, height: 16)
        let log = Recorder<Received>()
        let (refusal, elapsed) = try await withLoggingOrigin(log, answer: { _ in .ok(photo, delay: .seconds(30)) }) { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date, retries: true)
            let request = ImageRequest(urlRequest: DataRequest(url: origin.url("/slow.jpg"), timeout: .milliseconds(300)))
            let start = ContinuousClock.now
            let refusal = await failure(of: pipeline, request)
            return (refusal, start.duration(to: .now))
        }
        #expect(refusal?.reason == .timeout)
        // Ended by the request's 300 ms: not before them (a refusal before sending would be
        // immediate), and not by the loader's own 30 s or more. Whether the origin saw the request
        // first is not asserted: under ThreadSanitizer with every suite at once, 300 ms can pass
        // before the connection is made (seen in CI).
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(10))
    }

    @Test func aHeaderValueWithALineBreakIsRefusedBeforeAnythingIsSent() async throws {
        let log = Recorder<Received>()
        let failures = try await withLoggingOrigin(log, answer: { _ in .status(500) }) { origin in
            let (pipeline, _) = try makePipeline(folder: folder, date: date)
            let injected = DataRequest(url: origin.url("/a.jpg"), headers: ["X-Name": "a\r\nAuthorization: Bearer stolen"])
            let badName = DataRequest(url: origin.url("/a.jpg"), headers: ["X Name": "a"])
            let badMethod = DataRequest(url: origin.url("/a.jpg"), method: "GET /other HTTP/1.1\r\n")
            var collected: [ImagePipelineError?] = []
            for request in [injected, badName, badMethod] {
                collected.append(await failure(of: pipeline, ImageRequest(urlRequest: request)))
            }
            return collected
        }
        #expect(failures.map { $0?.reason } == [.invalidSource, .invalidSource, .invalidSource])
        #expect(log.all.isEmpty)
    }

    /// A redirect within the origin keeps the method (307) and the credentials; a redirect to
    /// another origin (303: as `GET`) must not carry the caller's credentials there.
    @Test func credentialsAreNotSentToAnotherOriginARedirectLeadsTo() async throws {
        let photo = try TestImage.jpeg(width: 16, height: 16)
        let targetLog = Recorder<Received>()
        try await withLoggingOrigin(targetLog, answer: { _ in .ok(photo) }) { target in
            let sourceLog = Recorder<Received>()
            try await withLoggingOrigin(sourceLog, answer: { request in
                request.path == "/a.jpg"
                    ? .status(307, headers: [("Location", "/b.jpg")])
                    : .status(303, headers: [("Location", target.url("/elsewhere.jpg").absoluteString)])
            }) { source in
                let (pipeline, _) = try makePipeline(folder: folder, date: date)
                let request = DataRequest(url: source.url("/a.jpg"), method: "POST", headers: ["Authorization": "Bearer mine", "Accept": "image/*"])
                #expect(try await pipeline.image(for: ImageRequest(urlRequest: request)).origin == .network)
            }
            #expect(sourceLog.all == ["/a.jpg", "/b.jpg"].map { Received(method: "POST", path: $0, authorization: "Bearer mine", accept: "image/*") })
        }
        #expect(targetLog.all == [Received(method: "GET", path: "/elsewhere.jpg", authorization: nil, accept: "image/*")])
    }

    // MARK: Bytes and providers under an identifier

    @Test func bytesUnderAnIdentifierAreDecodedProcessedAndCached() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let bytes = try TestImage.png(width: 100, height: 50, seed: 3)
        let request = ImageRequest(id: "generated/1", data: bytes, thumbnail: 40, processors: [ImageProcessors.Crop(x: 0, y: 0, width: 20, height: 10)])
        let first = try await pipeline.image(for: request)
        #expect(first.origin == .provided)
        #expect(first.bitmap.width == 20 && first.bitmap.height == 10)
        #expect(request.url == nil)
        let second = try await pipeline.image(for: request)
        #expect(second.origin == .memory)
        #expect(PixelDifference(first.bitmap, second.bitmap).maximum == 0)
        #expect(pipeline.statistics.dataLoads == 1)
    }

    @Test func bytesThatAreNotAnImageFailToDecode() async throws {
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let refusal = await failure(of: pipeline, ImageRequest(id: "text", data: Data("not an image".utf8)))
        #expect(refusal?.reason == .unsupportedFormat)
    }

    /// Ten requests for one identifier in flight at once: one provider call, ten images; later
    /// requests from memory, and a new pipeline's from the processed copy on disk.
    @Test func concurrentRequestsForOneIdentifierShareOneProviderCall() async throws {
        let bytes = try TestImage.jpeg(width: 120, height: 80, seed: 2)
        let calls = Counter()
        let gate = Gate()
        let provider: @Sendable () async throws -> Data = {
            calls.increment()
            try await gate.wait()
            return bytes
        }
        let request = ImageRequest(id: "avatar/42", thumbnail: 60, provider: provider)
        let (pipeline, disk) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
        // Each task has joined the load in flight when imageTask returns (nonisolated caller).
        let tasks = (0..<10).map { _ in pipeline.imageTask(with: request) }
        gate.open()
        var sizes: [[Int]] = []
        for task in tasks {
            let response = try await task.response
            sizes.append([response.bitmap.width, response.bitmap.height])
            #expect(response.origin == .provided)
        }
        #expect(sizes == Array(repeating: [60, 40], count: 10))
        #expect(calls.count == 1)
        #expect(try await pipeline.image(for: request).origin == .memory)
        #expect(calls.count == 1)
        let diskKey = request.imageKey.diskKey
        #expect(await eventually { pipeline.dataCacheWriter?.entry(forKey: diskKey) != nil }, "encoded in the background")
        await pipeline.shutdown()
        disk.close()

        let (restarted, _) = try makePipeline(folder: folder, date: date) { $0.dataCachePolicy = .storeAll }
        let stored = try await restarted.image(for: request)
        #expect(stored.origin == .disk)
        #expect(stored.bitmap.width == 60 && stored.bitmap.height == 40)
        #expect(calls.count == 1, "served from the processed copy, without calling the provider")
        await restarted.shutdown()
    }

    @Test func aProviderThatThrowsFailsItsRequestsAndIsCalledAgainLater() async throws {
        struct Unavailable: Error {}
        let bytes = try TestImage.jpeg(width: 16, height: 16)
        let calls = Counter()
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let request = ImageRequest(id: "flaky") {
            guard calls.increment() > 1 else { throw Unavailable() }
            return bytes
        }
        let refusal = await failure(of: pipeline, request)
        guard case .dataLoadingFailed(let underlying) = refusal else {
            Issue.record("expected dataLoadingFailed, got \(String(describing: refusal))")
            return
        }
        #expect(underlying is Unavailable)
        #expect(try await pipeline.image(for: request).origin == .provided)
        #expect(calls.count == 2)
    }

    @Test func aProviderIsNotCalledForARequestThatAllowsOnlyCachedImages() async throws {
        let calls = Counter()
        let (pipeline, _) = try makePipeline(folder: folder, date: date)
        let request = ImageRequest(id: "never", cachePolicy: .returnCacheDataDontLoad) {
            calls.increment()
            return Data()
        }
        let refusal = await failure(of: pipeline, request)
        #expect(refusal?.reason == .notCached)
        #expect(calls.count == 0)
    }
}

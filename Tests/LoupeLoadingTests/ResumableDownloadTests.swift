import Foundation
import LoupeOrigin
import LoupeTestSupport
import Testing
@testable import LoupeLoading

/// Downloads cut off and resumed against the embedded origin over real HTTP: the origin serves
/// its file with `Range`/`If-Range` and logs every request's headers.
@Suite struct ResumableDownloadTests {
    let file = payload(1_000_000, seed: 11)
    static let etag = "\"v1\""

    /// A retrying loader with short delays over an AsyncHTTPClient loader keeping cut-off bodies in `store`.
    private func retrying(_ store: ResumableDownloads) -> RetryingDataLoader<AsyncHTTPClientDataLoader> {
        RetryingDataLoader(AsyncHTTPClientDataLoader(resumableDownloads: store),
                           policy: RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(1), maximumDelay: .milliseconds(1)))
    }

    /// The offset a `Range: bytes=N-` asks from, or `nil` for any other value.
    private func rangeStart(_ request: OriginRequest) -> Int? {
        guard let range = request.header("Range"), range.hasPrefix("bytes="), range.hasSuffix("-") else { return nil }
        return Int(range.dropFirst("bytes=".count).dropLast())
    }

    /// Loads `url` once, which the origin cuts off, and once more, with one loader over `store`.
    private func cutThenLoaded(_ url: URL, store: ResumableDownloads) async throws -> DataResponse {
        let loader = AsyncHTTPClientDataLoader(resumableDownloads: store)
        await #expect(throws: DataLoadingError.self) { try await loader.loadData(for: DataRequest(url: url)) }
        try #require(store.count == 1, "the cut-off body is kept")
        return try await loader.loadData(for: DataRequest(url: url))
    }

    @Test func aDownloadCutAt80PercentIsResumedByTheRetryWithARange() async throws {
        let file = file
        let statuses = Recorder<Int>()
        let store = ResumableDownloads()
        try await OriginServer.run(handler: { request in
            let first = statuses.all.isEmpty
            let response = OriginResponse.file(file, for: request, etag: Self.etag)
            statuses.record(response.status)
            return first ? response.cut(atFraction: 0.8) : response
        }) { origin in
            let response = try await retrying(store).loadData(for: DataRequest(url: origin.url("photo.jpg")))
            #expect(response.statusCode == 200)
            #expect(response.data == file, "the final bytes are the file's")
            #expect(response.header("Content-Length") == "1000000")
            #expect(response.header("Content-Range") == nil)
            let log = origin.requests(for: "photo.jpg")
            try #require(log.count == 2)
            #expect(log[0].header("Range") == nil)
            let start = try #require(rangeStart(log[1]), "the retry asks for the rest: \(log[1].headers)")
            #expect(start > 0 && start <= 800_000)
            #expect(log[1].header("If-Range") == Self.etag)
            #expect(statuses.all == [200, 206])
            #expect(store.count == 0, "a completed download keeps nothing")
        }
    }

    @Test func aDownloadItsCallerLeftIsResumedByTheNextLoad() async throws {
        let file = file
        let arrived = Gate()
        let store = ResumableDownloads()
        try await OriginServer.run(handler: { request in
            var response = OriginResponse.file(file, for: request, etag: Self.etag)
            // The first answer drips until its caller leaves; the next is served at once.
            if request.header("Range") == nil { response.fault = .drip(chunkBytes: 50_000, interval: .milliseconds(20)) }
            return response
        }) { origin in
            let loader = AsyncHTTPClientDataLoader(resumableDownloads: store)
            let url = origin.url("photo.jpg")
            let first = Task {
                try await loader.loadData(for: DataRequest(url: url)) { received, _ in
                    if received >= 200_000 { arrived.open() }
                }
            }
            try await arrived.wait()
            first.cancel()
            await #expect(throws: CancellationError.self) { try await first.value }
            #expect(store.count == 1)
            let kept = store.totalBytes
            #expect(kept >= 200_000 && kept < file.count)

            let second = try await loader.loadData(for: DataRequest(url: url))
            #expect(second.statusCode == 200)
            #expect(second.data == file)
            let log = origin.requests(for: "photo.jpg")
            try #require(log.count == 2)
            #expect(rangeStart(log[1]) == kept, "the next load asks from the first byte it lacks")
            #expect(log[1].header("If-Range") == Self.etag)
        }
    }

    @Test func aFileChangedMeanwhileIsDownloadedWholeAgain() async throws {
        let old = file
        let new = payload(900_000, seed: 99)
        let seen = Recorder<Int>()
        let store = ResumableDownloads()
        try await OriginServer.run(handler: { request in
            // The first answer is the old version, cut off; then the file changes.
            let first = seen.all.isEmpty
            let response = first ? OriginResponse.file(old, for: request, etag: Self.etag).cut(atFraction: 0.8)
                : OriginResponse.file(new, for: request, etag: "\"v2\"")
            seen.record(response.status)
            return response
        }) { origin in
            let response = try await cutThenLoaded(origin.url("photo.jpg"), store: store)
            #expect(response.data == new)
            #expect(response.header("ETag") == "\"v2\"")
            let log = origin.requests(for: "photo.jpg")
            try #require(log.count == 2)
            #expect(log[1].header("If-Range") == Self.etag, "it asked for the rest of the old version")
            #expect(seen.all == [200, 200], "and was sent the new one whole")
            #expect(store.count == 0)
        }
    }

    @Test(arguments: [RangeFault.refused, .wrongStart, .wrongLength])
    func aRangeThatDoesNotContinueTheBytesStartsOver(fault: RangeFault) async throws {
        let file = file
        let seen = Recorder<Int>()
        let store = ResumableDownloads()
        try await OriginServer.run(handler: { request in
            let first = seen.all.isEmpty
            seen.record(0)
            let response = OriginResponse.file(file, for: request, etag: Self.etag)
            if first { return response.cut(atFraction: 0.8) }
            guard request.header("Range") != nil else { return response }
            switch fault {
            case .refused:
                return .status(416, headers: [("Content-Range", "bytes */\(file.count)")])
            case .wrongStart:
                return OriginResponse(status: 206, headers: [("ETag", Self.etag), ("Content-Range", "bytes 1000-\(file.count - 1)/\(file.count)")],
                                      body: file.subdata(in: 1_000..<file.count))
            case .wrongLength:
                var ranged = response
                ranged.headers = ranged.headers.map { name, value in
                    (name, name == "Content-Range" ? value.replacingOccurrences(of: "/\(file.count)", with: "/\(file.count + 1)") : value)
                }
                return ranged
            }
        }) { origin in
            let response = try await cutThenLoaded(origin.url("photo.jpg"), store: store)
            #expect(response.data == file)
            let log = origin.requests(for: "photo.jpg")
            try #require(log.count == 3)
            #expect(log[1].header("Range") != nil)
            #expect(log[2].header("Range") == nil, "after a range that does not fit, the whole body is asked for")
            #expect(store.count == 0)
        }
    }

    @Test func aWeakValidatorOrNoneKeepsNothing() async throws {
        let file = file
        let store = ResumableDownloads()
        try await OriginServer.run(handler: { request in
            let etag = request.path == "/weak.jpg" ? "W/\"v1\"" : nil
            return OriginResponse.file(file, for: request, etag: etag).cut(atFraction: 0.5)
        }) { origin in
            let loader = AsyncHTTPClientDataLoader(resumableDownloads: store)
            for path in ["weak.jpg", "none.jpg"] {
                await #expect(throws: DataLoadingError.self) { try await loader.loadData(for: DataRequest(url: origin.url(path))) }
            }
            #expect(store.count == 0)
            #expect(store.totalBytes == 0)
        }
    }

    @Test func theStoreKeepsItsBoundsLeastRecentlyKeptFirst() throws {
        let store = ResumableDownloads(maximumCount: 2, maximumBytes: 100)
        let headers = ["etag": "\"a\""]
        func request(_ name: String) -> DataRequest { DataRequest(url: URL(string: "http://127.0.0.1/\(name)")!) }
        func partial(_ count: Int) throws -> PartialDownload {
            try #require(PartialDownload(data: payload(count), headers: headers, completeLength: 1_000))
        }
        store.keep(try partial(30), for: request("a"))
        store.keep(try partial(30), for: request("b"))
        store.keep(try partial(30), for: request("c"))
        #expect(store.count == 2, "the count bound")
        #expect(store.take(for: request("a")) == nil, "the least recently kept went first")
        store.keep(try partial(60), for: request("d"))
        #expect(store.totalBytes <= 100, "the byte bound")
        #expect(store.take(for: request("b")) == nil)
        #expect(store.take(for: request("c"))?.data.count == 30)
        store.keep(try partial(101), for: request("e"))
        #expect(store.take(for: request("e")) == nil, "a body over the byte bound is not kept")
        // Only conditional headers are left out of the resource's key; another method is not kept.
        store.keep(try partial(10), for: request("f"))
        var conditional = request("f")
        conditional.headers["If-None-Match"] = "\"a\""
        #expect(store.take(for: conditional)?.data.count == 10)
        var post = request("g")
        post.method = "POST"
        store.keep(try partial(10), for: post)
        #expect(store.take(for: post) == nil)
    }

    @Test func onlyAStrongValidatorIsSentAsIfRange() {
        #expect(PartialDownload.strongValidator(in: ["etag": "\"x\""]) == "\"x\"")
        #expect(PartialDownload.strongValidator(in: ["etag": "W/\"x\"", "last-modified": "Sun, 06 Nov 1994 08:49:37 GMT"]) == nil)
        let modified = "Sun, 06 Nov 1994 08:49:37 GMT"
        #expect(PartialDownload.strongValidator(in: ["last-modified": modified, "date": "Sun, 06 Nov 1994 08:49:38 GMT"]) == modified)
        #expect(PartialDownload.strongValidator(in: ["last-modified": modified, "date": modified]) == nil, "a date within its second is weak")
        #expect(PartialDownload.strongValidator(in: ["last-modified": modified]) == nil)
        #expect(PartialDownload(data: payload(10), headers: ["etag": "\"x\"", "accept-ranges": "none"], completeLength: 20) == nil)
    }

    @Test func contentRangeIsReadStrictly() {
        let range = ContentRange("bytes 10-19/20")
        #expect(range?.first == 10 && range?.last == 19 && range?.completeLength == 20)
        #expect(ContentRange("bytes 10-19/*")?.completeLength == nil)
        for bad in ["bytes 10-19/19", "bytes 19-10/20", "bytes */20", "items 0-1/2", "bytes -1-5/9", "bytes 0-1"] {
            #expect(ContentRange(bad) == nil, "\(bad)")
        }
    }
}

/// How a server's answer to a resumed range goes wrong.
enum RangeFault: Sendable, CaseIterable {
    /// `416 Range Not Satisfiable`.
    case refused
    /// A `206` starting elsewhere than the first byte missing.
    case wrongStart
    /// A `206` stating another complete length than the first answer's.
    case wrongLength
}

import Foundation
import LoupeLoading
import LoupeOrigin
import LoupeTestSupport
import Testing

/// Deterministic bytes, so a body can be compared byte for byte.
private func payload(_ count: Int) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
}

/// Runs `body` against a started origin and stops it afterwards.
private func withOrigin<T>(
    _ handler: @escaping OriginServer.Handler, _ body: (OriginServer) async throws -> T
) async throws -> T {
    try await OriginServer.run(handler: handler, body)
}

/// The embedded origin on its own: what it puts on the wire, keep-alive, faults, and that
/// clients going away or `stop()` end its work.
@Suite struct OriginServerTests {
    @Test func servesTheHandlersResponsesOverOneKeptAliveConnection() async throws {
        let image = payload(50_000)
        let seen = Recorder<OriginRequest>()
        try await withOrigin({ request in
            seen.record(request)
            return request.path == "/image.jpg" ? .ok(image) : .status(404, headers: [("X-Reason", "missing")])
        }) { origin in
            let loader = AsyncHTTPClientDataLoader()
            for i in 0..<20 {
                let response = try await loader.loadData(for: DataRequest(url: origin.url("image.jpg?i=\(i)"), headers: ["X-Test": "\(i)"]))
                #expect(response.statusCode == 200)
                #expect(response.data == image)
                #expect(response.header("Content-Type") == "image/jpeg")
                #expect(response.header("Content-Length") == "50000")
            }
            await #expect(throws: DataLoadingError.httpStatus(404, url: origin.url("/missing").absoluteString, retryAfter: nil)) {
                try await loader.loadData(for: DataRequest(url: origin.url("/missing")))
            }
            #expect(origin.requestCount(for: "/image.jpg") == 20, "the query is not part of the path")
            #expect(origin.requestCount(for: "image.jpg") == 20)
            #expect(origin.requestCount(for: "/missing") == 1)
            #expect(origin.totalRequests == 21)
            #expect(origin.acceptedConnections == 1, "sequential requests reuse one connection")
            #expect(origin.baseURL.absoluteString == "http://127.0.0.1:\(origin.port)")
        }
        let first = try #require(seen.all.first)
        #expect(first.method == "GET" && first.path == "/image.jpg" && first.query == "i=0")
        #expect(first.header("x-test") == "0")
    }

    @Test func concurrentRequestsAreCountedPerPath() async throws {
        try await withOrigin({ request in .ok(Data(request.path.utf8), contentType: "text/plain") }) { origin in
            // 60 at once, not hundreds: AsyncHTTPClient's pool keeps 8 connections to a host and
            // counts a request's wait for one against the 10 s connect timeout, which a queue of
            // 200 outlived under ThreadSanitizer on a loaded machine (getConnectionFromPoolTimeout).
            // The pool's wait counts against the connect timeout: a minute, not ten seconds (a
            // queue of 60 outlived those too under ThreadSanitizer beside the other suites).
            let loader = AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(connectTimeout: .seconds(60)))
            let bodies = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for i in 0..<60 {
                    group.addTask {
                        let response = try await loader.loadData(for: DataRequest(url: origin.url("/p\(i % 10)")))
                        return (i % 10, String(decoding: response.data, as: UTF8.self))
                    }
                }
                return try await group.reduce(into: [(Int, String)]()) { $0.append($1) }
            }
            #expect(bodies.count == 60)
            #expect(bodies.allSatisfy { "/p\($0.0)" == $0.1 })
            for i in 0..<10 { #expect(origin.requestCount(for: "/p\(i)") == 6) }
            #expect(origin.totalRequests == 60)
            #expect(origin.acceptedConnections < 60, "connections are reused")
        }
    }

    @Test func aDelayPrecedesTheResponseHead() async throws {
        try await withOrigin({ _ in .ok(payload(10), delay: .milliseconds(300)) }) { origin in
            let start = ContinuousClock.now
            let response = try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/late")))
            #expect(ContinuousClock.now - start >= .milliseconds(300))
            #expect(response.data == payload(10))
        }
    }

    @Test func resetAfterSendsTheHeadAndPartOfTheBodyThenAnRST() async throws {
        let body = payload(100_000)
        try await withOrigin({ _ in OriginResponse(body: body, fault: .resetAfter(bytes: 10_000)) }) { origin in
            let connection = try RawHTTPConnection(port: origin.port)
            await connection.sendGET("/reset")
            let (bytes, end) = await connection.receive(upTo: 1_000_000)
            #expect(end == .reset)
            let response = try #require(RawResponse(bytes))
            #expect(response.statusLine == "HTTP/1.1 200 OK")
            #expect(response.headers["content-length"] == "100000", "the whole body is announced")
            #expect(response.body.count <= 10_000)
            #expect(response.body.elementsEqual(body.prefix(response.body.count)))

            await #expect {
                try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/reset")))
            } throws: { error in
                guard case DataLoadingError.network = error else { return false }
                return true
            }
        }
    }

    @Test func declaredLengthAnnouncesMoreThanItSendsThenCloses() async throws {
        try await withOrigin({ _ in OriginResponse(body: payload(40), fault: .declaredLength(100)) }) { origin in
            let connection = try RawHTTPConnection(port: origin.port)
            await connection.sendGET("/short")
            let (bytes, end) = await connection.receive(upTo: 1_000)
            #expect(end == .closed, "an orderly close, not a reset")
            let response = try #require(RawResponse(bytes))
            #expect(response.headers["content-length"] == "100")
            #expect(response.body == Array(payload(40)))

            await #expect(throws: DataLoadingError.self) {
                try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/short")))
            }
        }
    }

    @Test func dripSendsTheBodyInPiecesOverTime() async throws {
        let body = payload(10_000)
        try await withOrigin({ _ in
            OriginResponse(body: body, fault: .drip(chunkBytes: 1_000, interval: .milliseconds(50)))
        }) { origin in
            let reports = Recorder<Int>()
            let start = ContinuousClock.now
            let response = try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/drip"))) { received, _ in
                reports.record(received)
            }
            #expect(ContinuousClock.now - start >= .milliseconds(450), "nine pauses between ten chunks")
            #expect(response.data == body)
            #expect(response.header("Content-Length") == "10000")
            #expect(reports.all.count >= 5, "the body arrived in pieces")
            #expect(origin.acceptedConnections == 1)
        }
    }

    @Test func anEndlessBodyStopsWhenTheClientGivesUp() async throws {
        try await withOrigin({ _ in OriginResponse(body: payload(100), fault: .endless(chunkBytes: 16_384)) }) { origin in
            let loader = AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(maximumBodySize: 1_000_000))
            await #expect(throws: DataLoadingError.tooLarge(limit: 1_000_000, declared: nil)) {
                try await loader.loadData(for: DataRequest(url: origin.url("/endless")))
            }
            #expect(await eventually { origin.openConnections == 0 },
                    "the server noticed the client leaving and ended the response")
        }
    }

    @Test func aClientVanishingMidResponseEndsItsConnection() async throws {
        try await withOrigin({ request in
            request.path == "/drip"
                ? OriginResponse(body: payload(100_000), fault: .drip(chunkBytes: 100, interval: .milliseconds(100)))
                : .ok(payload(100_000))
        }) { origin in
            var connection: RawHTTPConnection? = try RawHTTPConnection(port: origin.port)
            await connection?.sendGET("/drip")
            let first = await connection?.receive(upTo: 50)
            #expect(first?.end == .limit)
            #expect(origin.openConnections == 1)
            connection = nil // closes the socket mid-body
            #expect(await eventually { origin.openConnections == 0 })
            // The server is unharmed.
            let response = try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/after")))
            #expect(response.data.count == 100_000)
        }
    }

    @Test func stopEndsEndlessDrippingAndDelayedResponses() async throws {
        let origin = try await OriginServer.start { request in
            switch request.path {
            case "/endless": OriginResponse(body: payload(100), fault: .endless(chunkBytes: 65_536))
            case "/drip": OriginResponse(body: payload(100_000), fault: .drip(chunkBytes: 10, interval: .seconds(1)))
            default: .ok(payload(10), delay: .seconds(120))
            }
        }
        let endless = try RawHTTPConnection(port: origin.port)
        await endless.sendGET("/endless")
        #expect(await endless.receive(upTo: 1_000).end == .limit, "then stops reading: the server's writes back up")
        let drip = try RawHTTPConnection(port: origin.port)
        await drip.sendGET("/drip")
        let delayed = try RawHTTPConnection(port: origin.port)
        await delayed.sendGET("/delayed")
        #expect(await eventually { origin.totalRequests == 3 })

        let stopped = Counter()
        let stopping = Task {
            await origin.stop()
            stopped.increment()
        }
        #expect(await eventually { stopped.count == 1 }, "stop() returns without waiting for the responses")
        await stopping.value
        #expect(origin.openConnections == 0)
        // Each client sees its connection end (whatever was buffered arrives first).
        for connection in [endless, drip, delayed] {
            let end = await connection.receive(upTo: 1 << 30).end
            #expect(end == .closed || end == .reset)
        }
        #expect(throws: POSIXError.self, "the listener is closed") { try RawHTTPConnection(port: origin.port) }
    }

    @Test func headAnd304CarryNoBodyAndTheConnectionGoesOn() async throws {
        try await withOrigin({ request in
            request.path == "/same" ? .status(304, headers: [("ETag", "\"1\"")]) : .ok(payload(1_000))
        }) { origin in
            // Each bodiless response is complete with its head; a stray body would show up in
            // front of the next response.
            let headComplete: @Sendable ([UInt8]) -> Bool = { RawResponse($0) != nil }
            let connection = try RawHTTPConnection(port: origin.port)
            await connection.send("HEAD /image HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let head = await connection.receive(upTo: 100_000, until: headComplete)
            #expect(head.end == .limit, "a complete response, on a connection still open")
            let headResponse = try #require(RawResponse(head.bytes))
            #expect(headResponse.statusLine == "HTTP/1.1 200 OK")
            #expect(headResponse.headers["content-length"] == "1000")
            #expect(headResponse.body.isEmpty)

            await connection.sendGET("/same")
            let notModified = try #require(RawResponse(await connection.receive(upTo: 100_000, until: headComplete).bytes))
            #expect(notModified.statusLine == "HTTP/1.1 304 Not Modified")
            #expect(notModified.headers["content-length"] == nil && notModified.headers["transfer-encoding"] == nil)
            #expect(notModified.body.isEmpty)

            await connection.sendGET("/image", keepAlive: false)
            let (bytes, end) = await connection.receive(upTo: 100_000)
            let last = try #require(RawResponse(bytes))
            #expect(last.headers["connection"] == "close")
            #expect(last.body == Array(payload(1_000)))
            #expect(end == .closed, "closed after a request that asked for it")
            #expect(origin.acceptedConnections == 1)
        }
    }

    @Test func aMalformedRequestGetsA400AndTheServerGoesOn() async throws {
        try await withOrigin({ _ in .ok(payload(10)) }) { origin in
            let connection = try RawHTTPConnection(port: origin.port)
            await connection.send("NOT HTTP AT ALL\r\n\r\n")
            let (bytes, end) = await connection.receive(upTo: 10_000)
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400"))
            #expect(end == .closed)
            #expect(origin.totalRequests == 0)
            let response = try await AsyncHTTPClientDataLoader().loadData(for: DataRequest(url: origin.url("/fine")))
            #expect(response.data == payload(10))
        }
    }
}

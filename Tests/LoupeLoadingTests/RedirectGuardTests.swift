import Foundation
import LoupeOrigin
import LoupeTestSupport
import NIOConcurrencyHelpers
import Testing
@testable import LoupeLoading

/// The address guard on every hop, over real HTTP on loopback: the origin (127.0.0.3, the one
/// address permitted) redirects 0 to 3 times before reaching a refused target, where a
/// ``QuietListener`` shows whether any connection was made.
@Suite struct RedirectGuardTests {
    /// A refused target: the URL, the address the error names, and the listener that must see
    /// no connection (none where nothing can listen, such as 169.254.169.254).
    struct Target: Sendable {
        var url: String
        var refused: String
        var listener: QuietListener?
    }

    static let originHost = "127.0.0.3"
    let policy = NetworkAddressPolicy(permittedAddresses: [Self.originHost])

    /// Runs `body` beside an origin whose `/hop/n` redirects to `/hop/n-1` and `/hop/1` to
    /// `target` (so `/hop/n` reaches `target` after n redirects); returns what `body` returns.
    @discardableResult
    func withOrigin<Result>(redirectingTo target: String, _ body: (OriginServer) async throws -> Result) async throws -> Result {
        try await OriginServer.run(host: Self.originHost, handler: { request in
            guard request.path.hasPrefix("/hop/"), let n = Int(request.path.dropFirst("/hop/".count)), n >= 1 else {
                return .status(404)
            }
            return .status(302, headers: [("Location", n == 1 ? target : "/hop/\(n - 1)")])
        }, body)
    }

    func start(_ target: String, redirects: Int, origin: OriginServer) -> URL {
        redirects == 0 ? URL(string: target) ?? origin.baseURL : origin.url("/hop/\(redirects)")
    }

    /// Every refused form, at every hop position: refused with the address named, and no
    /// connection reached the target.
    @Test(arguments: 0...3)
    func everyHopIsCheckedBeforeConnecting(redirects: Int) async throws {
        let hidden = try QuietListener(host: "127.0.0.2")
        let loopback = try QuietListener(host: "127.0.0.1")
        let targets = [
            Target(url: "http://127.0.0.2:\(hidden.port)/secret", refused: "127.0.0.2", listener: hidden),
            Target(url: "http://[::ffff:127.0.0.2]:\(hidden.port)/secret", refused: "::ffff:127.0.0.2", listener: hidden),
            Target(url: "http://localhost:\(loopback.port)/secret", refused: "127.0.0.1", listener: loopback),
            Target(url: "http://169.254.169.254/latest/meta-data/", refused: "169.254.169.254", listener: nil),
        ]
        // A connect attempt to the link-local address would wait for the 180 s connect timeout;
        // the total leaves the hops through the origin time under ThreadSanitizer (seen: 21 s
        // there, with two cores busy).
        let loader = AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(connectTimeout: .seconds(180), totalTimeout: .seconds(300)),
                                               addressPolicy: policy)
        for target in targets {
            try await withOrigin(redirectingTo: target.url) { origin in
                let start = ContinuousClock.now
                await #expect(throws: DataLoadingError.forbiddenAddress(target.refused), "\(target.url) after \(redirects)") {
                    try await loader.loadData(for: DataRequest(url: self.start(target.url, redirects: redirects, origin: origin)))
                }
                #expect(ContinuousClock.now - start < .seconds(90), "refused at once, not after a connect attempt")
                #expect(target.listener?.takePendingConnections() ?? 0 == 0, "\(target.url) after \(redirects): a connection was made")
                let followed = (0..<redirects).map { origin.requestCount(for: "/hop/\($0 + 1)") }
                #expect(followed == Array(repeating: 1, count: redirects), "every redirect before the refused hop was followed once")
            }
        }
    }

    /// Open and closed refused ports give the same error, at every hop position.
    @Test(arguments: 0...3)
    func openAndClosedPortsAnswerAlike(redirects: Int) async throws {
        let open = try QuietListener(host: "127.0.0.2")
        let closedPort = try freePort(on: "127.0.0.2")
        let loader = AsyncHTTPClientDataLoader(addressPolicy: policy)
        var errors: [String] = []
        for port in [open.port, closedPort] {
            let target = "http://127.0.0.2:\(port)/secret"
            try await withOrigin(redirectingTo: target) { origin in
                do {
                    _ = try await loader.loadData(for: DataRequest(url: start(target, redirects: redirects, origin: origin)))
                    Issue.record("\(target) loaded")
                } catch {
                    errors.append(String(describing: error))
                }
            }
        }
        #expect(errors.count == 2)
        #expect(Set(errors).count == 1, "\(errors)")
        #expect(errors.first == String(describing: DataLoadingError.forbiddenAddress("127.0.0.2")))
        #expect(open.takePendingConnections() == 0)
    }

    /// The listener sees a connection when nothing guards: the proof above can fail. The load,
    /// which waits for headers that never come, is cancelled once the connection is seen.
    @Test func anUnguardedLoadDoesConnect() async throws {
        let hidden = try QuietListener(host: "127.0.0.2")
        let loader = AsyncHTTPClientDataLoader()
        let target = "http://127.0.0.2:\(hidden.port)/secret"
        try await withOrigin(redirectingTo: target) { origin in
            let load = Task { try await loader.loadData(for: DataRequest(url: origin.url("/hop/2"))) }
            var connections = 0
            // Polled, not timed: the hops through the origin may be slow under ThreadSanitizer.
            #expect(await eventually(timeout: .seconds(60)) {
                connections += hidden.takePendingConnections()
                return connections > 0
            })
            load.cancel()
            await #expect(throws: (any Error).self) { try await load.value }
            #expect(connections == 1)
        }
    }

    /// A permitted name is connected to the address it was checked at, and the request still
    /// carries the name: `Host` is `localhost`, not the address.
    @Test func aCheckedNameKeepsItsHostHeader() async throws {
        let hosts = NIOLockedValueBox<[String]>([])
        try await OriginServer.run(host: "127.0.0.1", handler: { request in
            hosts.withLockedValue { $0.append(request.header("host") ?? "") }
            if request.path == "/start" { return .status(301, headers: [("Location", "/final")]) }
            return .ok(Data("pinned".utf8), contentType: "text/plain")
        }) { origin in
            let loader = AsyncHTTPClientDataLoader(addressPolicy: NetworkAddressPolicy(permittedAddresses: ["127.0.0.1"]))
            let url = try #require(URL(string: "http://localhost:\(origin.port)/start"))
            let response = try await loader.loadData(for: DataRequest(url: url))
            #expect(response.data == Data("pinned".utf8))
            #expect(response.url.absoluteString == "http://localhost:\(origin.port)/final")
            #expect(hosts.withLockedValue { $0 } == ["localhost:\(origin.port)", "localhost:\(origin.port)"])
        }
    }

    /// Redirect limits and cycles hold on the guarded path too.
    @Test func guardedRedirectsKeepTheirLimits() async throws {
        try await OriginServer.run(host: Self.originHost, handler: { request in
            switch request.path {
            case "/loop": .status(302, headers: [("Location", "/loop")])
            case "/file": .status(302, headers: [("Location", "file:///etc/passwd")])
            case "/hop/3": .status(307, headers: [("Location", "/hop/2")])
            case "/hop/2": .status(308, headers: [("Location", "/hop/1")])
            case "/hop/1": .status(303, headers: [("Location", "/ok")])
            default: .ok(Data("ok".utf8), contentType: "text/plain")
            }
        }) { origin in
            let three = AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(maximumRedirects: 3), addressPolicy: policy)
            #expect(try await three.loadData(for: DataRequest(url: origin.url("/hop/3"))).data == Data("ok".utf8))
            let two = AsyncHTTPClientDataLoader(limits: HTTPLoadingLimits(maximumRedirects: 2), addressPolicy: policy)
            await #expect(throws: DataLoadingError.tooManyRedirects(limit: 2)) {
                try await two.loadData(for: DataRequest(url: origin.url("/hop/3")))
            }
            await #expect(throws: DataLoadingError.tooManyRedirects(limit: 3)) {
                try await three.loadData(for: DataRequest(url: origin.url("/loop")))
            }
            do {
                _ = try await three.loadData(for: DataRequest(url: origin.url("/file")))
                Issue.record("a redirect to a file URL was followed")
            } catch let error as DataLoadingError {
                guard case .invalidResponse = error else { throw error }
            }
        }
    }
}

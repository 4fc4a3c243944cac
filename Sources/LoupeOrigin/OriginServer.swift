import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix

/// An HTTP/1.1 origin embedded in the process, on a free port of 127.0.0.1: serves whatever its
/// handler answers, with latency and with the faults real servers and networks produce (a
/// reset mid-body, a slow drip, a lying `Content-Length`, an endless body).
///
/// For what nginx will not do on demand: the pipeline's fault tests, and `loupe demo`, which
/// serves generated images with latency. Connections are kept alive between requests (HTTP
/// clients pool them); each serves one request at a time. A client going away mid-response ends
/// its connection's work; ``stop()`` closes the listener and every connection, ending endless
/// and dripping responses.
///
/// ```swift
/// let origin = try await OriginServer.start { request in
///     request.path == "/slow.jpg" ? .ok(jpeg, delay: .milliseconds(200)) : .status(404)
/// }
/// defer { Task { await origin.stop() } }
/// let url = origin.url("/slow.jpg")
/// ```
package final class OriginServer: Sendable {
    /// Answers a request; called concurrently, once per request, on no particular executor.
    package typealias Handler = @Sendable (OriginRequest) async -> OriginResponse

    /// An endless body stops after this many bytes even if the client keeps reading: a safety
    /// net, so no response can run forever (1 GiB, far past any test's size cap).
    package static let endlessBodyLimit = 1 << 30

    /// The loopback port it listens on.
    package let port: Int
    /// The loopback address it listens on (127.0.0.1 unless started on another).
    package let host: String
    private let listener: any Channel
    private let acceptLoop: Task<Void, Never>
    private let registry: OriginRegistry

    /// Starts on `host` (a loopback address, 127.0.0.1 by default) with a free port (bound to
    /// port 0: no race with other servers); `handler` answers every request.
    package static func start(host: String = "127.0.0.1", handler: @escaping Handler) async throws -> OriginServer {
        let registry = OriginRegistry()
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .bind(host: host, port: 0) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(
                        wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw OriginServerError("the listener has no local port")
        }
        let acceptLoop = Task {
            await withDiscardingTaskGroup { group in
                do {
                    try await server.executeThenClose { connections in
                        for try await connection in connections {
                            group.addTask {
                                await OriginConnection(connection: connection, handler: handler, registry: registry).run()
                            }
                        }
                    }
                } catch {
                    // The listener was closed (stop) or failed: no new connections. The group
                    // still waits for those open, which stop() closes.
                }
            }
        }
        return OriginServer(host: host, port: port, listener: server.channel, acceptLoop: acceptLoop, registry: registry)
    }

    /// Starts a server, runs `body` with it, and stops it whatever `body` does: for tests and
    /// anything else whose use of the origin has a scope.
    package static func run<Result>(
        host: String = "127.0.0.1", handler: @escaping Handler, _ body: (OriginServer) async throws -> Result
    ) async throws -> Result {
        let server = try await start(host: host, handler: handler)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    private init(host: String, port: Int, listener: any Channel, acceptLoop: Task<Void, Never>, registry: OriginRegistry) {
        self.host = host
        self.port = port
        self.listener = listener
        self.acceptLoop = acceptLoop
        self.registry = registry
    }

    deinit {
        // Not stopped by its owner: at least release the port and every connection.
        acceptLoop.cancel()
        listener.close(promise: nil)
        for channel in registry.stop() { channel.close(promise: nil) }
    }

    /// `http://<host>:<port>`.
    package var baseURL: URL { URL(string: "http://\(host):\(port)") ?? URL(fileURLWithPath: "/") }

    /// The URL of `path` (with or without its leading `/`, with or without a query) on this server.
    package func url(_ path: String) -> URL {
        let target = path.hasPrefix("/") ? path : "/" + path
        return URL(string: "http://\(host):\(port)\(target)") ?? baseURL.appendingPathComponent(path)
    }

    /// How many requests for `path` (query excluded; with or without its leading `/`) arrived.
    package func requestCount(for path: String) -> Int {
        registry.requestCount(for: path.hasPrefix("/") ? path : "/" + path)
    }

    /// The requests for `path` (query excluded; with or without its leading `/`) with their
    /// headers, oldest first: the origin's log (its latest requests, up to its limit).
    package func requests(for path: String) -> [OriginRequest] {
        registry.requests(for: path.hasPrefix("/") ? path : "/" + path)
    }

    /// How many requests arrived, for any path.
    package var totalRequests: Int { registry.totalRequests }

    /// How many connections clients opened so far (keep-alive reuses them).
    package var acceptedConnections: Int { registry.acceptedConnections }

    /// How many connections are open now.
    package var openConnections: Int { registry.openConnections }

    /// Closes the listener and every open connection, ending responses in progress (delays,
    /// drips, endless bodies) and handlers still running (their tasks are cancelled); returns
    /// when all of them have ended.
    package func stop() async {
        let connections = registry.stop()
        acceptLoop.cancel()
        try? await listener.close()
        for channel in connections { try? await channel.close() }
        await acceptLoop.value
    }
}

/// The origin could not start.
package struct OriginServerError: Error, CustomStringConvertible {
    package let description: String
    init(_ description: String) { self.description = description }
}

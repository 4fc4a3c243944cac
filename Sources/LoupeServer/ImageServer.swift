import Foundation
import Hummingbird
import Logging
import LoupeCaching
import NIOCore
import ServiceLifecycle

/// `loupe serve`: the image service over HTTP (Hummingbird), started and stopped by
/// swift-service-lifecycle. SIGTERM or SIGINT (or ``shutDown()``) starts a graceful shutdown in
/// two phases: first `/health` answers 503 while requests are still accepted for
/// ``ServerSettings/drainDelay`` (a load balancer's health checks take the instance out of
/// rotation meanwhile, and responses say `Connection: close` so kept-alive connections move
/// elsewhere); then no new connection is accepted, requests in flight finish within the grace
/// period, and ``run(onStarted:)`` returns.
public final class ImageServer: Sendable {
    /// What it was started with.
    public let settings: ServerSettings
    let service: ImageService
    private let state = ServerState()
    private let logger: Logger
    private let accessLog: Logger?
    private let group = Locked<ServiceGroup?>(nil)
    private let shutdownRequested = Locked(false)

    /// A server for `settings`; `logger` gets start-up and shutdown messages, `accessLog` one
    /// line per request (none when `nil`).
    /// - Throws: when the cache folder cannot be opened.
    public init(settings: ServerSettings, logger: Logger, accessLog: Logger? = nil) throws {
        self.settings = settings
        self.logger = logger
        self.accessLog = accessLog
        service = try ImageService(settings: settings, metrics: ServerMetrics(), logger: logger)
    }

    /// How long a shutdown may take from its start: the drain delay, then the time requests in
    /// flight may take to finish.
    public var gracePeriod: Duration { settings.drainDelay + settings.requestTimeout + .seconds(1) }

    /// Serves until a shutdown signal (or ``shutDown()``) and the drain after it; calls
    /// `onStarted` with the bound port once listening.
    public func run(onStarted: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let connections = ClientConnections()
        let responder = ServiceResponder(service: service, state: state, accessLog: accessLog, connections: connections)
        let app = Application(
            responder: responder,
            server: .http1(configuration: .init(additionalChannelHandlers: [connections.makeWatcher()])),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "loupe", reuseAddress: true),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? 0) },
            logger: logger)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: app), .init(service: DrainMonitor(state: state, delay: settings.drainDelay, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let serviceGroup = ServiceGroup(configuration: configuration)
        let stopAtOnce = group.withLock { group in
            group = serviceGroup
            return shutdownRequested.withLock { $0 }
        }
        if stopAtOnce { await serviceGroup.triggerGracefulShutdown() }
        if settings.servesUnsigned {
            logger.warning("serving unsigned URLs ('insecure' or '_'): anyone can make this server process any allowed source")
        }
        try await serviceGroup.run()
        await service.flushCaches()
    }

    /// Starts a graceful shutdown, as SIGTERM does.
    public func shutDown() async {
        let serviceGroup = group.withLock { group in
            shutdownRequested.withLock { $0 = true }
            return group
        }
        await serviceGroup?.triggerGracefulShutdown()
    }
}

/// The drain phase: marks the server as draining as soon as a graceful shutdown starts, then
/// waits the drain delay before returning. Listed after the HTTP server, so the service group
/// signals it first and signals the HTTP server (which then stops accepting) only once this
/// returns: the group shuts services down one at a time, in reverse order.
private struct DrainMonitor: Service {
    let state: ServerState
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        state.startDraining()
        guard delay > .zero else { return }
        logger.info("draining: /health answers 503; accepting requests for \(delay) more")
        // Cancelled only when the whole group is (its shutdown took longer than the grace period).
        try? await Task.sleep(for: delay)
    }
}

import Foundation
import Hummingbird
import Logging
import LoupeCaching
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `loupe serve`: the image service over HTTP (Hummingbird), started and stopped by
/// swift-service-lifecycle. SIGTERM or SIGINT (or ``shutDown()``) starts a graceful shutdown in
/// two phases: first `/health` answers 503 while requests are still accepted for
/// ``ServerSettings/drainDelay`` (a load balancer's health checks take the instance out of
/// rotation meanwhile, and responses say `Connection: close` so kept-alive connections move
/// elsewhere); then no new connection is accepted, requests in flight finish within the grace
/// period, and ``run(onStarted:)`` returns. A second SIGTERM or SIGINT during that shutdown stops
/// at once: connections are closed, requests in flight are cut, and ``run(onStarted:)`` throws
/// ``ServerStop/secondSignal`` (an operator who signals twice does not want to wait the grace
/// period out; process managers escalate the same way, only later and with SIGKILL, which also
/// loses the staged cache writes that this stop still flushes).
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
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await serviceGroup.run() }
                tasks.addTask { [logger] in try await Self.stopAtSecondSignal(logger: logger) }
                // The first to end decides: the group after its graceful shutdown, or the second
                // signal, which throws and so cancels the group (and with it every request).
                try await tasks.next()
                tasks.cancelAll()
            }
        } catch {
            // Staged cache writes are results already paid for: written even on a forced stop.
            await service.flushCaches()
            throw error
        }
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

    /// Waits for a second SIGTERM or SIGINT (the service group handles the first) and throws;
    /// returns when cancelled, which is when the server stopped by itself.
    private static func stopAtSecondSignal(logger: Logger) async throws {
        var caught = 0
        for await signal in await UnixSignalsSequence(trapping: .sigterm, .sigint) {
            caught += 1
            guard caught >= 2 else { continue }
            logger.warning("second \(signal): stopping now, requests in flight are cut")
            throw ServerStop.secondSignal
        }
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

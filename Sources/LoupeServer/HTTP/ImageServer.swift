import Foundation
import Hummingbird
import Logging
import LoupeCaching
import NIOCore
import ServiceLifecycle

/// The image service as a server of its own: ``ImageRoutes`` (every endpoint, at the root) on a
/// Hummingbird HTTP/1.1 server that also watches each connection, so a request whose client goes
/// away stops its share of the work.
///
/// A swift-service-lifecycle `Service`: run it in the application's `ServiceGroup`, which owns
/// signals. On the group's graceful shutdown (or ``shutDown()``) no new connection is accepted,
/// requests in flight finish, the disk caches are flushed and ``run(onStarted:)`` returns.
/// ``startDraining()`` beforehand makes `/health` answer 503 while requests are still served, so
/// a load balancer takes the instance out of rotation first; `loupe serve` does both on SIGTERM.
public final class ImageServer: Service, Sendable {
    /// What it was started with.
    public let settings: ServerSettings
    /// The routes it serves.
    let routes: ImageRoutes
    private let logger: Logger
    private let group = Locked<ServiceGroup?>(nil)
    private let shutdownRequested = Locked(false)

    /// A server for `settings`; `logger` gets start-up and shutdown messages, `accessLog` one
    /// line per request (none when `nil`).
    /// - Throws: when the cache folder cannot be opened.
    public init(settings: ServerSettings, logger: Logger, accessLog: Logger? = nil) throws {
        self.settings = settings
        self.logger = logger
        routes = try ImageRoutes(settings: settings, logger: logger, accessLog: accessLog)
    }

    /// What it answers: every endpoint, and the playground when its settings ask for it.
    var endpoints: ImageRoutes.Endpoints { settings.playground ? ImageRoutes.Endpoints.all.union(.playground) : .all }

    /// Serves until a graceful shutdown (the enclosing service group's, or ``shutDown()``), then
    /// flushes the disk caches; calls `onStarted` with the bound port once listening.
    public func run(onStarted: @escaping @Sendable (Int) async -> Void) async throws {
        let connections = ClientConnections()
        let app = Application(
            router: routes.router(endpoints: endpoints, connections: connections),
            server: .http1(configuration: .init(additionalChannelHandlers: [connections.makeWatcher()])),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: "loupe", reuseAddress: true),
            onServerRunning: { channel in await onStarted(channel.localAddress?.port ?? 0) },
            logger: logger)
        // A group of its own, without signals: ``shutDown()`` can stop it, and it follows the
        // graceful shutdown of the group this server runs in.
        let serviceGroup = ServiceGroup(configuration: ServiceGroupConfiguration(services: [.init(service: app)], logger: logger))
        let stopAtOnce = group.withLock { group in
            group = serviceGroup
            return shutdownRequested.withLock { $0 }
        }
        if stopAtOnce { await serviceGroup.triggerGracefulShutdown() }
        if settings.playground, !settings.keys.isEmpty {
            logger.warning("the playground is on with a signing key: anyone who reaches this server can have URLs signed")
        }
        if settings.servesUnsigned {
            logger.warning("serving unsigned URLs ('insecure' or '_'): anyone can make this server process any allowed source")
        }
        try await serviceGroup.run()
        await routes.flushCaches()
    }

    /// `Service`: ``run(onStarted:)`` without a start-up callback.
    public func run() async throws {
        try await run(onStarted: { _ in })
    }

    /// Loads (again) the watermark image: ``ImageRoutes/reloadWatermark()``. Call it before
    /// ``run(onStarted:)`` when a watermark is set, and on SIGHUP.
    public func reloadWatermark() async throws(SettingsError) { try await routes.reloadWatermark() }

    /// Loads the fallback image: ``ImageRoutes/loadFallbackImage()``. Call it once before
    /// ``run(onStarted:)`` when a fallback image is set.
    public func loadFallbackImage() async throws(SettingsError) { try await routes.loadFallbackImage() }

    /// Starts a graceful shutdown of this server alone.
    public func shutDown() async {
        let serviceGroup = group.withLock { group in
            shutdownRequested.withLock { $0 = true }
            return group
        }
        await serviceGroup?.triggerGracefulShutdown()
    }

    /// Makes `/health` answer 503 and every response say `Connection: close`, while requests are
    /// still served: the drain before a shutdown.
    public func startDraining() { routes.startDraining() }

    /// Returns once what both disk caches were handed is written (``run(onStarted:)`` does this
    /// when it returns; an app that stops it by cancellation calls this itself).
    public func flushCaches() async { await routes.flushCaches() }
}

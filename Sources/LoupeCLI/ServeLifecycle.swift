import Logging
import LoupeServer
import ServiceLifecycle
import UnixSignals

/// `loupe serve`'s process lifecycle around an ``ImageServer``, the part an application owns
/// (an app that embeds Loupe's routes does this its own way).
///
/// SIGTERM or SIGINT starts a graceful shutdown in two phases: first `/health` answers 503 while
/// requests are still accepted for the drain delay (a load balancer's health checks take the
/// instance out of rotation meanwhile, and responses say `Connection: close` so kept-alive
/// connections move elsewhere); then no new connection is accepted, requests in flight finish
/// within the grace period, and ``run(onStarted:)`` returns. A second SIGTERM or SIGINT during
/// that shutdown stops at once: connections are closed, requests in flight are cut, and
/// ``run(onStarted:)`` throws ``ServerStop/secondSignal`` (an operator who signals twice does not
/// want to wait the grace period out; process managers escalate the same way, only later and
/// with SIGKILL, which also loses the staged cache writes that this stop still flushes).
struct ServeLifecycle {
    let server: ImageServer
    let logger: Logger

    /// How long a shutdown may take from its start: the drain delay, then the time requests in
    /// flight may take to finish.
    var gracePeriod: Duration { server.settings.drainDelay + server.settings.requestTimeout + .seconds(1) }

    func run(onStarted: @escaping @Sendable (Int) async -> Void) async throws {
        let serving = Serving(server: server, onStarted: onStarted)
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: serving), .init(service: DrainMonitor(server: server, delay: server.settings.drainDelay, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        configuration.maximumGracefulShutdownDuration = gracePeriod
        let group = ServiceGroup(configuration: configuration)
        do {
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                tasks.addTask { try await group.run() }
                tasks.addTask { [logger] in try await Self.stopAtSecondSignal(logger: logger) }
                tasks.addTask { [server, logger] in await Self.reloadWatermarkOnHangUp(server: server, logger: logger) }
                // The first to end decides: the group after its graceful shutdown, or the second
                // signal, which throws and so cancels the group (and with it every request).
                try await tasks.next()
                tasks.cancelAll()
            }
        } catch {
            // Staged cache writes are results already paid for: written even on a forced stop
            // (here, outside the cancelled group).
            await server.flushCaches()
            throw error
        }
    }

    /// Re-reads the watermark image at each SIGHUP (a failure is logged, the old one kept);
    /// returns only when cancelled, since the first task to end stops the server. Without a
    /// watermark, SIGHUP is left alone.
    private static func reloadWatermarkOnHangUp(server: ImageServer, logger: Logger) async {
        if server.settings.watermark != nil {
            for await _ in await UnixSignalsSequence(trapping: .sighup) {
                do {
                    try await server.reloadWatermark()
                    logger.info("watermark reloaded")
                } catch {
                    logger.error("watermark reload failed; the previous watermark stays", metadata: ["error": "\(error)"])
                }
            }
        }
        while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
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

/// The server as the group's first service, reporting its port once listening.
private struct Serving: Service {
    let server: ImageServer
    let onStarted: @Sendable (Int) async -> Void

    func run() async throws {
        try await server.run(onStarted: onStarted)
    }
}

/// The drain phase: marks the server as draining as soon as a graceful shutdown starts, then
/// waits the drain delay before returning. Listed after the HTTP server, so the service group
/// signals it first and signals the HTTP server (which then stops accepting) only once this
/// returns: the group shuts services down one at a time, in reverse order.
private struct DrainMonitor: Service {
    let server: ImageServer
    let delay: Duration
    let logger: Logger

    func run() async throws {
        try? await gracefulShutdown()
        server.startDraining()
        guard delay > .zero else { return }
        logger.info("draining: /health answers 503; accepting requests for \(delay) more")
        // Cancelled only when the whole group is (its shutdown took longer than the grace period).
        try? await Task.sleep(for: delay)
    }
}

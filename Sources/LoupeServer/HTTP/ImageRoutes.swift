import Hummingbird
import Logging

/// Loupe's image service as routes in an application's own Hummingbird router: imgproxy URLs,
/// `/info/…` and `POST /batch` (and, if asked, `/health` and `/metrics`) under a path the app
/// chooses, beside its own routes and middleware.
///
/// The app keeps what belongs to an application: its server, its logger, signal handling and
/// shutdown. `loupe serve` is such an app (``ImageServer`` serves these routes at the root).
///
/// ```swift
/// let images = try ImageRoutes(settings: ServerSettings(), logger: logger)
/// let router = Router()
/// router.get("/hello") { _, _ in "hello" }
/// images.add(to: router, atPath: "/images")
/// let app = Application(router: router)
/// try await app.runService()
/// await images.flushCaches()
/// ```
public final class ImageRoutes: Sendable {
    /// What the routes serve with. Of these, `host`, `port` and `drainDelay` are the
    /// application's concern and unused here.
    public let settings: ServerSettings
    let service: ImageService
    let state = ServerState()
    let accessLog: Logger?

    /// The service's endpoints an app can mount.
    public struct Endpoints: OptionSet, Sendable {
        public let rawValue: Int
        /// Creates a set from its raw bits.
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// Images, `/info/…` and `POST /batch`.
        public static let images = Endpoints(rawValue: 1 << 0)
        /// `/health`: `ok`, or 503 once ``ImageRoutes/startDraining()`` was called.
        public static let health = Endpoints(rawValue: 1 << 1)
        /// `/metrics`: the service's Prometheus text exposition.
        public static let metrics = Endpoints(rawValue: 1 << 2)
        /// The playground page at `/` and its files, samples and (with a key) URL signing under
        /// `/playground/`: a development aid, in no other set; without it those paths are 404.
        public static let playground = Endpoints(rawValue: 1 << 3)
        /// Everything `loupe serve` answers (the playground only when asked for).
        public static let all: Endpoints = [.images, .health, .metrics]
    }

    /// Opens the service: its pipeline, caches (the disk caches when
    /// ``ServerSettings/cacheDirectory`` is set) and limits.
    /// - Parameters:
    ///   - settings: what to serve with: keys, allowed sources, caches, limits, workers.
    ///   - logger: start-up messages and failures (the app's own logger).
    ///   - accessLog: one line per request answered by these routes; none when `nil`.
    /// - Throws: when the cache folder cannot be opened.
    public init(settings: ServerSettings, logger: Logger, accessLog: Logger? = nil) throws {
        self.settings = settings
        self.accessLog = accessLog
        service = try ImageService(settings: settings, metrics: ServerMetrics(), logger: logger)
    }

    /// Adds the routes to `router` under `prefix` (`"/images"`: an image is
    /// `/images/<signature>/<options>/<source>`; `""` or `"/"`: at the root).
    ///
    /// Requests are answered as `loupe serve` answers them, except that a client closing its
    /// connection does not cancel its work early (that needs ``ImageServer``'s connection
    /// watcher); the request deadline still does.
    public func add<Router: RouterMethods>(to router: Router, atPath prefix: String, endpoints: Endpoints = .images) {
        let trimmed = prefix.split(separator: "/").joined(separator: "/")
        let mount = trimmed.isEmpty ? "" : "/" + trimmed
        let responder = makeResponder(connections: nil, endpoints: endpoints)
        let handler: @Sendable (Request, Router.Context) async throws -> Response = { request, _ in
            let target = request.head.path ?? "/"
            var path = String(target.prefix { $0 != "?" })
            if !mount.isEmpty, path.hasPrefix(mount) { path = String(path.dropFirst(mount.count)) }
            return await responder.answer(request, path: path.isEmpty ? "/" : path, connection: nil)
        }
        for method in [HTTPRequest.Method.get, .head, .post] {
            router.on(RouterPath(mount + "/**"), method: method, use: handler)
        }
        // The playground's page is the mount point itself, which `/**` does not match.
        if endpoints.contains(.playground) {
            for method in [HTTPRequest.Method.get, .head] {
                router.on(RouterPath(mount.isEmpty ? "/" : mount + "/"), method: method, use: handler)
            }
        }
    }

    /// Loads (again) the watermark image ``ServerSettings/watermark`` names, decoded once for
    /// every URL's `watermark`/`wm`: call it before serving, and again to pick up a changed
    /// image (`loupe serve` does on SIGHUP). Does nothing when no watermark is set.
    /// - Throws: a ``SettingsError`` naming the setting; the watermark loaded before stays.
    public func reloadWatermark() async throws(SettingsError) { try await service.reloadWatermark() }

    /// Makes `/health` answer 503 and every response say `Connection: close`: the first step of
    /// taking an instance out of a load balancer's rotation before it stops.
    public func startDraining() { state.startDraining() }

    /// Whether ``startDraining()`` was called.
    public var isDraining: Bool { state.isDraining }

    /// Returns once what both disk caches (sources and results) were handed is written: the
    /// last step of a graceful shutdown.
    public func flushCaches() async { await service.flushCaches() }

    func makeResponder(connections: ClientConnections?, endpoints: Endpoints) -> ServiceResponder {
        ServiceResponder(service: service, state: state, accessLog: accessLog, connections: connections, endpoints: endpoints)
    }
}

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
/// router.addRoutes(images.routes(), atPath: "/images")
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

    /// The routes of `endpoints` as a collection an app mounts with
    /// `router.addRoutes(collection, atPath: "/images")`: their paths are relative to where they
    /// are mounted (an image is `<mount>/<signature>/<options>/<source>`), and the service's
    /// middleware (JSON errors, the drain header, metrics, the access log) wraps each of them.
    ///
    /// Requests are answered as `loupe serve` answers them, except that a client closing its
    /// connection does not cancel its work early (that needs ``ImageServer``'s connection
    /// watcher); the request deadline still does.
    public func routes<Context: RequestContext>(endpoints: Endpoints = .images, context: Context.Type = BasicRequestContext.self)
        -> RouteCollection<Context> {
        routes(endpoints: endpoints, connections: nil, context: context)
    }

    /// Adds the routes of `endpoints` to `router` under `prefix` (`"/images"`, or `""` or `"/"`
    /// for the root): ``routes(endpoints:context:)`` mounted there.
    public func add<Router: RouterMethods>(to router: Router, atPath prefix: String, endpoints: Endpoints = .images) {
        let trimmed = prefix.split(separator: "/").joined(separator: "/")
        router.addRoutes(routes(endpoints: endpoints, context: Router.Context.self), atPath: RouterPath(trimmed.isEmpty ? "" : "/" + trimmed))
    }

    /// Loads (again) the watermark image ``ServerSettings/watermark`` names, decoded once for
    /// every URL's `watermark`/`wm`: call it before serving, and again to pick up a changed
    /// image (`loupe serve` does on SIGHUP). Does nothing when no watermark is set.
    /// - Throws: a ``SettingsError`` naming the setting; the watermark loaded before stays.
    public func reloadWatermark() async throws(SettingsError) { try await service.reloadWatermark() }

    /// Loads the fallback image ``ServerSettings/fallbackImage`` names, once, before serving:
    /// until then (or when none is set) a source that cannot be loaded is its JSON error.
    /// - Throws: a ``SettingsError`` naming the setting: the image cannot be read, loaded or decoded.
    public func loadFallbackImage() async throws(SettingsError) { try await service.loadFallbackImage() }

    /// Makes `/health` answer 503 and every response say `Connection: close`: the first step of
    /// taking an instance out of a load balancer's rotation before it stops.
    public func startDraining() { state.startDraining() }

    /// Whether ``startDraining()`` was called.
    public var isDraining: Bool { state.isDraining }

    /// Returns once what both disk caches (sources and results) were handed is written: the
    /// last step of a graceful shutdown.
    public func flushCaches() async { await service.flushCaches() }

    /// The routes, with `connections` (``ImageServer``'s watcher) to cancel the work of a client
    /// that leaves.
    func routes<Context: RequestContext>(endpoints: Endpoints, connections: ClientConnections?, context: Context.Type) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        for middleware in middleware(context: Context.self) { routes.add(middleware: middleware) }
        ServiceEndpoints(service: service, state: state, connections: connections).add(to: routes, endpoints: endpoints)
        return routes
    }

    /// `loupe serve`'s router: every route in `endpoints` at the root, or under
    /// ``ServerSettings/pathPrefix``, and the service's middleware around what no route matched
    /// too (a router applies middleware added after its routes to its not-found answer alone).
    func router(endpoints: Endpoints, connections: ClientConnections?) -> Router<ServiceRequestContext> {
        let router = Router(context: ServiceRequestContext.self)
        let prefix = service.settings.pathPrefix.split(separator: "/").joined(separator: "/")
        router.addRoutes(routes(endpoints: endpoints, connections: connections, context: ServiceRequestContext.self),
                         atPath: RouterPath(prefix.isEmpty ? "" : "/" + prefix))
        for middleware in middleware(context: ServiceRequestContext.self) { router.add(middleware: middleware) }
        return router
    }

    /// The service's middleware, outermost first.
    private func middleware<Context: RequestContext>(context: Context.Type) -> [any MiddlewareProtocol<Request, Response, Context>] {
        var list: [any MiddlewareProtocol<Request, Response, Context>] = []
        if let accessLog { list.append(AccessLogMiddleware(log: accessLog)) }
        list += [MetricsMiddleware(metrics: service.metrics), DrainMiddleware(state: state)]
        // Outside the errors' middleware, so that error answers carry the headers too.
        if let origin = service.settings.allowOrigin { list.append(CORSMiddleware(origin: origin)) }
        list.append(ServiceErrorMiddleware())
        return list
    }
}

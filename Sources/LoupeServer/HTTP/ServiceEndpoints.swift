import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The service's endpoints as Hummingbird routes: images (a recursive wildcard, since an
/// imgproxy path holds a whole source URL, slashes and all), `/info/…`, `POST /batch`, `/health`,
/// `/metrics` and the playground. Paths are relative to where the routes are mounted; a method a
/// path does not take is 405. What every answer shares (the JSON errors, the drain header,
/// metrics, the access log) is middleware (``ImageRoutes``).
struct ServiceEndpoints: Sendable {
    let service: ImageService
    let state: ServerState
    /// The connection watcher of `loupe serve`'s own server (`nil` in an app's router, which
    /// installs none).
    let connections: ClientConnections?

    typealias Handler<Context: RequestContext> = @Sendable (Request, Context) async throws -> Response

    /// The methods a route answers 405 to when it does not take them.
    private static let refusedMethods: [HTTPRequest.Method] = [.get, .head, .post, .put, .delete, .patch, .options]

    /// Adds the routes of `endpoints` to `routes`.
    func add<Context: RequestContext>(to routes: RouteCollection<Context>, endpoints: ImageRoutes.Endpoints) {
        if endpoints.contains(.images) {
            let images: Handler<Context> = { request, context in
                try await image(request, path: Self.pathBelowRoute(context), connection: connection(context))
            }
            on(routes, "/**", [.get: images, .head: images])
            let infos: Handler<Context> = { _, context in
                try await info(path: Self.pathBelowRoute(context), connection: connection(context))
            }
            on(routes, "/info/**", [.get: infos, .head: infos])
            on(routes, "/batch", [.post: { request, _ in try await batch(request) }])
        }
        if endpoints.contains(.health) {
            let status: Handler<Context> = { _, _ in health() }
            on(routes, "/health", [.get: status, .head: status])
        }
        if endpoints.contains(.metrics) {
            on(routes, "/metrics", [.get: { _, _ in metrics() }])
        }
        if endpoints.contains(.playground) {
            addPlayground(to: routes)
        } else if endpoints.contains(.images) {
            // Reserved for the playground: not image URLs even when it is off.
            missing(routes, "/playground/**")
        }
        // The service's own paths when not mounted: 404, not image URLs.
        if endpoints.contains(.images) {
            if !endpoints.contains(.health) { missing(routes, "/health") }
            if !endpoints.contains(.metrics) { missing(routes, "/metrics") }
        }
    }

    /// Adds `path` with a handler per method it takes, and 405 for the others.
    func on<Context: RequestContext>(_ routes: RouteCollection<Context>, _ path: RouterPath, _ handlers: [HTTPRequest.Method: Handler<Context>]) {
        for (method, handler) in handlers { routes.on(path, method: method, use: handler) }
        for method in Self.refusedMethods where handlers[method] == nil {
            routes.on(path, method: method) { request, _ -> Response in throw ServiceError.methodNotAllowed(request.method) }
        }
    }

    /// Adds `path` as one that is not there: 404 for every method.
    func missing<Context: RequestContext>(_ routes: RouteCollection<Context>, _ path: RouterPath) {
        for method in Self.refusedMethods {
            routes.on(path, method: method) { _, _ -> Response in throw ServiceError.notFound }
        }
    }

    /// What a recursive wildcard route matched, as the path below the route's fixed part: the
    /// request's own text from the first matched segment on, so the `//` of a source URL and a
    /// trailing `/` stay as sent.
    static func pathBelowRoute<Context: RequestContext>(_ context: Context) -> String {
        guard let matched = context.parameters[Parameters.recursiveCaptureKey] else { return "/" }
        return "/" + matched.base[matched.startIndex...]
    }

    /// The request's client connection, when this server watches it.
    private func connection<Context: RequestContext>(_ context: Context) -> ClientConnection? {
        guard let connections, let context = context as? ServiceRequestContext else { return nil }
        return connections.connection(for: context.channel)
    }

    private func health() -> Response {
        state.isDraining ? Self.json(["status": "draining"], status: .serviceUnavailable) : Self.json(["status": "ok"], status: .ok)
    }

    private func metrics() -> Response {
        let text = service.metrics.exposition(pipeline: service.pipeline, admitted: service.gate.count,
                                              secondsPerRequest: service.gate.serviceTime.secondsPerRequest, budget: service.memoryBudget,
                                              encodingQueue: service.encodingQueue)
        var headers = HTTPFields()
        headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }

    static func json(_ object: [String: String], status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }
}

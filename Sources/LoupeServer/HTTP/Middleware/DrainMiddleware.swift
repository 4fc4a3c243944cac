import Hummingbird

/// While the instance drains (``ImageRoutes/startDraining()``), every answer says
/// `Connection: close`: the instance is about to stop listening, so the client's next request
/// should open a connection elsewhere (through the load balancer) rather than reuse this one.
struct DrainMiddleware<Context: RequestContext>: RouterMiddleware {
    let state: ServerState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        if state.isDraining { response.headers[.connection] = "close" }
        return response
    }
}

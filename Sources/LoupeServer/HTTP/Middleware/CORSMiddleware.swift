import Hummingbird

/// imgproxy's CORS (`IMGPROXY_ALLOW_ORIGIN`, ``ServerSettings/allowOrigin``): every answer, an
/// error's too, names the origin allowed to read it and the methods (`GET, OPTIONS`), and a
/// preflight `OPTIONS` on any path is answered 200 with them and nothing else: images are read
/// with simple GETs, so no header or credential is granted beyond that.
struct CORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let origin: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response = request.method == .options ? Response(status: .ok) : try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlAllowMethods] = "GET, OPTIONS"
        return response
    }
}

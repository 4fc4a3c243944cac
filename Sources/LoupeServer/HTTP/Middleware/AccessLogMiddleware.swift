import Hummingbird
import Logging

/// One access-log record per request the service answers: method, path (without the query),
/// status, milliseconds and the body's bytes. Outermost of the service's middleware, so the
/// record has the status and body every other step settled on.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    let log: Logger

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = start.duration(to: .now)
        log.info("request", metadata: [
            "method": "\(request.method.rawValue)", "path": "\(request.uri.path)", "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000),
            // The body's own length: error bodies carry no Content-Length header here.
            "bytes": .stringConvertible(response.body.contentLength ?? 0),
        ])
        return response
    }
}

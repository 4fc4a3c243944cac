import Hummingbird

/// Counts each answered request by status, its total time, and the requests in flight
/// (``ServerMetrics``, scraped at `/metrics`).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        metrics.inFlight.increment()
        defer { metrics.inFlight.decrement() }
        let response = try await next(request, context)
        metrics.countRequest(status: response.status.code)
        metrics.stageDuration("total", start.duration(to: .now))
        return response
    }
}

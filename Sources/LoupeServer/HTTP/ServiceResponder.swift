import Foundation
import HTTPTypes
import Hummingbird
import Logging
import LoupeCodecs
import LoupeLoading
import NIOCore

/// Answers every HTTP request: the image URLs, `/info`, `/batch`, `/health` and `/metrics`.
/// Every failure becomes a JSON error with its status; nothing escapes as a 500.
struct ServiceResponder: HTTPResponder {
    typealias Context = ServiceRequestContext

    let service: ImageService
    let state: ServerState
    let accessLog: Logger?
    /// The connection watcher of `loupe serve`'s own server (`nil` in an app's router, which
    /// installs none).
    let connections: ClientConnections?
    /// What is answered; a path of an endpoint not listed is 404.
    let endpoints: ImageRoutes.Endpoints

    /// `loupe serve`'s own server: the whole target path, the client's connection watched.
    func respond(to request: Request, context: Context) async throws -> Response {
        let target = request.head.path ?? "/"
        return await answer(request, path: String(target.prefix { $0 != "?" }), connection: connections?.connection(for: context.channel))
    }

    /// Answers `request` for `path` (the target's path below where the routes are mounted, no
    /// query); `connection`, when known, cancels the request's work if its client goes away.
    func answer(_ request: Request, path: String, connection: ClientConnection?) async -> Response {
        let start = ContinuousClock.now
        service.metrics.inFlight.increment()
        defer { service.metrics.inFlight.decrement() }
        var response: Response
        do {
            response = try await route(request, path: path, connection: connection)
        } catch {
            response = Self.errorResponse(ServiceError.from(error))
        }
        if request.method == .head {
            response.body = ResponseBody()
        }
        if state.isDraining {
            // The instance is about to stop listening: the client's next request should open a
            // connection elsewhere (through the load balancer) rather than reuse this one.
            response.headers[.connection] = "close"
        }
        service.metrics.countRequest(status: response.status.code)
        let elapsed = start.duration(to: .now)
        service.metrics.stageDuration("total", elapsed)
        accessLog?.info("request", metadata: [
            "method": "\(request.method.rawValue)", "path": "\(path)", "status": .stringConvertible(response.status.code),
            "ms": .stringConvertible(Double(elapsed.components.attoseconds / 1_000_000_000_000) / 1000 + Double(elapsed.components.seconds) * 1000),
            // The body's own length: error bodies carry no Content-Length header here.
            "bytes": .stringConvertible(response.body.contentLength ?? 0),
        ])
        return response
    }

    private func route(_ request: Request, path: String, connection: ClientConnection?) async throws -> Response {
        switch (request.method, path) {
        case (_, _) where path == "/" || path.hasPrefix("/playground/"):
            guard endpoints.contains(.playground) else { throw ServiceError.notFound }
            return try await playground(request, path: path)
        case (_, "/health") where !endpoints.contains(.health), (_, "/metrics") where !endpoints.contains(.metrics):
            throw ServiceError.notFound
        case (_, _) where !endpoints.contains(.images):
            throw ServiceError.notFound
        case (.get, "/health"), (.head, "/health"):
            return state.isDraining
                ? Self.json(["status": "draining"], status: .serviceUnavailable)
                : Self.json(["status": "ok"], status: .ok)
        case (.get, "/metrics"):
            let text = service.metrics.exposition(pipeline: service.pipeline, admitted: service.gate.count, budget: service.memoryBudget,
                                                      encodingQueue: service.encodingQueue)
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; version=0.0.4; charset=utf-8"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
        case (.post, "/batch"):
            return try await batch(request)
        case (.get, _), (.head, _):
            if path.hasPrefix("/info/") {
                return try await info(request, path: String(path.dropFirst("/info".count)), connection: connection)
            }
            return try await image(request, path: path, connection: connection)
        default:
            throw ServiceError(405, "methodNotAllowed", "method \(request.method.rawValue) is not allowed here")
        }
    }

    // MARK: - Images

    private func image(_ request: Request, path: String, connection: ClientConnection?) async throws -> Response {
        let start = ContinuousClock.now
        let plan = try service.plan(path: path, accept: request.headers[.accept])
        let ifNoneMatch = request.headers[.ifNoneMatch]
        // The one result-cache lookup (memory, then disk): a result already made needs no
        // admission, so a full queue of new work does not turn away what is ready.
        let cached = service.cachedResult(for: plan)
        // A local file not modified since the client's copy: answered before any work (the
        // result depends on nothing else that can change). `If-None-Match`, when sent, decides
        // instead (RFC 9110 §13.1.3).
        if ifNoneMatch == nil, let lastModified = plan.lastModified, let since = request.headers[.ifModifiedSince],
           let sinceDate = HTTPDate.parse(since), lastModified.timeIntervalSince1970.rounded(.down) <= sinceDate.timeIntervalSince1970 {
            var headers = HTTPFields()
            headers[.lastModified] = HTTPDate.string(from: lastModified)
            headers[.cacheControl] = "public, max-age=\(service.settings.timeToLive)"
            if plan.negotiated { headers[.vary] = "Accept" }
            if let cached { headers[.eTag] = cached.etag }
            return Response(status: .notModified, headers: headers)
        }
        let result: EncodedResult
        let cacheHit = cached != nil
        if let cached {
            result = cached
        } else {
            let timeout = service.settings.requestTimeout
            let ticket = try service.admit(deadline: timeout)
            var completedWork = false
            defer { service.gate.leave(ticket, completedWork: completedWork) }
            let service = self.service
            // The work stops at the request's deadline or when the client goes away; this
            // request's share of work shared with others is released then (the others keep it going).
            result = try await withDeadline(timeout, connection: connection) {
                try await service.makeResult(for: plan, arrival: ticket.arrival)
            }
            completedWork = true
        }
        if let ifNoneMatch, Self.matches(ifNoneMatch, result.etag) {
            return notModified(result, plan: plan)
        }
        var headers = cacheHeaders(result, plan: plan)
        headers[.contentType] = result.format.mimeType
        headers[.contentLength] = String(result.count)
        headers[.contentDisposition] = Self.contentDisposition(for: plan.url, options: plan.options, format: result.format)
        headers[ServerTiming.field] = result.timing.header(cacheHit: cacheHit, total: start.duration(to: .now))
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: result.body))
    }

    private func notModified(_ result: EncodedResult, plan: ImageService.Plan) -> Response {
        Response(status: .notModified, headers: cacheHeaders(result, plan: plan))
    }

    private func cacheHeaders(_ result: EncodedResult, plan: ImageService.Plan) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = result.etag
        headers[.cacheControl] = "public, max-age=\(Self.maxAge(timeToLive: service.settings.timeToLive, expires: plan.options.expires))"
        if plan.negotiated { headers[.vary] = "Accept" }
        if let lastModified = plan.lastModified { headers[.lastModified] = HTTPDate.string(from: lastModified) }
        return headers
    }

    // MARK: - Info

    private func info(_ request: Request, path: String, connection: ClientConnection?) async throws -> Response {
        let plan = try service.plan(path: path, accept: nil)
        guard service.gate.enter() else {
            service.metrics.countRefusal(.queueFull)
            throw ServiceError.queueFull
        }
        defer { service.gate.leave() }
        let timeout = service.settings.requestTimeout
        let service = self.service
        let report = try await withDeadline(timeout, connection: connection) {
            try await service.info(for: plan.url, options: plan.options, cacheKey: plan.request.cacheKey).json()
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=\(service.settings.timeToLive)"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: report)))
    }

    // MARK: - Batch

    private func batch(_ request: Request) async throws -> Response {
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: BatchRequest.maximumBodyBytes)
        } catch {
            throw ServiceError(413, "bodyTooLarge", "a batch body is at most \(BatchRequest.maximumBodyBytes) bytes")
        }
        let data = Data(buffer: body)
        let signature = request.headers.first { $0.name.canonicalName == "x-signature" }?.value
        try BatchRequest.authorize(authorization: request.headers[.authorization], signature: signature,
                                   body: data, settings: service.settings)
        let batch = try BatchRequest(body: data)
        // Not counted by the admission gate: the body is written after this returns, and a
        // slot taken here could leak if the connection dies first. Each batch runs at most
        // twice `workers` items at once, through the pipeline's own limits.
        let service = self.service
        var headers = HTTPFields()
        headers[.contentType] = "application/x-ndjson"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            for try await line in service.batchLines(batch) {
                try await writer.write(ByteBuffer(data: line))
            }
            try await writer.finish(nil)
        })
    }

    // MARK: - Helpers

    /// Whether an `If-None-Match` list names `etag` (or is `*`).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { item in
            let tag = item.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == etag || tag == "W/" + etag
        }
    }

    /// A download name: the source's last path component with the result's extension, reduced
    /// to characters safe in a quoted header value.
    static func fileName(for url: URL, format: ImageFormat) -> String {
        // The last path component without its extension, cut from the decoded path as text:
        // `URL`'s path-component methods each parse the URL again, on every response.
        let path = url.path
        var stem = path[(path.lastIndex(of: "/").map(path.index(after:)) ?? path.startIndex)...]
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = stem[..<dot] }
        let safe = String(String.UnicodeScalarView(stem.unicodeScalars.lazy.filter { scalar in
            scalar.isASCII && (("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                               || scalar == "-" || scalar == "_" || scalar == ".")
        }.prefix(100)))
        return (safe.isEmpty ? "image" : safe) + "." + format.fileExtension
    }

    static func errorResponse(_ error: ServiceError) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        switch error.status {
        case 429, 503, 504: headers[.cacheControl] = "no-store"
        default: headers[.cacheControl] = "public, max-age=10"
        }
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: HTTPResponse.Status(code: error.status), headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(data: error.json)))
    }

    static func json(_ object: [String: String], status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }
}

/// Runs `body`, or throws the service's 504 after `timeout`, or cancels it when `connection`'s
/// client goes away.
func withDeadline<T: Sendable>(
    _ timeout: Duration, connection: ClientConnection? = nil, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw ServiceError.timedOut
        }
        if let connection {
            group.addTask {
                await connection.waitUntilClosed()
                throw ServiceError.clientGone
            }
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw ServiceError.timedOut }
        return first
    }
}

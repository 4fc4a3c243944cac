import Foundation
import HTTPTypes
import Hummingbird
import Logging
import LoupeCodecs
import LoupeLoading
import NIOCore

extension ServiceEndpoints {
    // MARK: - Images

    func image(_ request: Request, path: String, connection: ClientConnection?) async throws -> Response {
        let start = ContinuousClock.now
        let plan = try service.plan(path: path, accept: request.headers[.accept],
                                    hints: ClientHints { name in HTTPField.Name(name).flatMap { request.headers[$0] } })
        if plan.thumborMeta { return try await thumborMeta(plan, connection: connection) }
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
            if let vary = plan.vary { headers[.vary] = vary }
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
        var headers: HTTPFields
        var status = HTTPResponse.Status.ok
        if let failure = result.fallbackFor {
            // The fallback image in place of the source: its own status and lifetime, and no
            // validators (it stands for no version of the source; imgproxy drops Last-Modified).
            status = HTTPResponse.Status(code: service.fallbackStatus(for: failure))
            headers = HTTPFields()
            if let maxAge = service.fallbackMaxAge(options: plan.options, status: status.code) { headers[.cacheControl] = "public, max-age=\(maxAge)" }
            if let vary = plan.vary { headers[.vary] = vary }
        } else {
            if let ifNoneMatch, Self.matches(ifNoneMatch, result.etag) {
                return notModified(result, plan: plan)
            }
            headers = cacheHeaders(result, plan: plan)
        }
        headers[.contentType] = result.format.mimeType
        headers[.contentLength] = String(result.count)
        headers[.contentDisposition] = Self.contentDisposition(for: plan.url, options: plan.options, format: result.format)
        headers[ServerTiming.field] = result.timing.header(cacheHit: cacheHit, total: start.duration(to: .now))
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: result.body))
    }

    private func notModified(_ result: EncodedResult, plan: ImageService.Plan) -> Response {
        Response(status: .notModified, headers: cacheHeaders(result, plan: plan))
    }

    private func cacheHeaders(_ result: EncodedResult, plan: ImageService.Plan) -> HTTPFields {
        var headers = HTTPFields()
        headers[.eTag] = result.etag
        headers[.cacheControl] = "public, max-age=\(Self.maxAge(timeToLive: plan.options.maxAge ?? service.settings.timeToLive, expires: plan.options.expires))"
        if let vary = plan.vary { headers[.vary] = vary }
        if let lastModified = plan.lastModified { headers[.lastModified] = HTTPDate.string(from: lastModified) }
        return headers
    }

    // MARK: - Info

    func info(path: String, connection: ClientConnection?) async throws -> Response {
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

    /// thumbor's `meta/`: the source's size from a small decode, then the operations thumbor
    /// would run on it (``ThumborMeta``), admitted and bounded as `/info` is.
    private func thumborMeta(_ plan: ImageService.Plan, connection: ClientConnection?) async throws -> Response {
        guard let geometry = plan.options.thumbor else { throw ServiceError.badURL("meta/ is thumbor's") }
        guard service.gate.enter() else {
            service.metrics.countRefusal(.queueFull)
            throw ServiceError.queueFull
        }
        defer { service.gate.leave() }
        let service = self.service
        let info = try await withDeadline(service.settings.requestTimeout, connection: connection) {
            try await service.info(for: plan.url, cacheKey: plan.pipelineKey)
        }
        let meta = try ThumborMeta(geometry: geometry, url: plan.url.absoluteString, width: info.width, height: info.height,
                                   frames: info.frames).json()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "public, max-age=\(service.settings.timeToLive)"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: meta)))
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
}

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
        let policy = service.validatorPolicy
        let ifNoneMatch = request.headers[.ifNoneMatch]
        let conditions = policy.conditions(ifNoneMatch: ifNoneMatch, ifModifiedSince: request.headers[.ifModifiedSince])
        if service.asksOrigin(plan) {
            return try await originImage(plan, conditions: conditions, ifNoneMatch: ifNoneMatch, start: start, connection: connection)
        }
        // A local source's validators are known before any work.
        let local = policy.validators(etag: plan.localETag, lastModified: plan.lastModified.map(HTTPDate.string(from:)), local: true)
        // The one result-cache lookup (memory, then disk): a result already made needs no
        // admission, so a full queue of new work does not turn away what is ready.
        let cached = service.cachedResult(for: plan)
        // A local file the client's copy is of: answered before any work (the result depends on
        // nothing else that can change). `If-None-Match`, when sent and not ignored (`--etag
        // none`), decides instead of `If-Modified-Since` (RFC 9110 §13.1.3).
        if Self.localFileUnchanged(plan: plan, conditions: conditions, ifNoneMatch: policy.etag == .none ? nil : ifNoneMatch,
                                   etagMode: policy.etag) {
            var headers = HTTPFields()
            Self.setValidators(local, etag: policy.etag == .digest ? cached?.etag : local.etag, in: &headers)
            headers[.cacheControl] = "public, max-age=\(service.settings.timeToLive)"
            if let vary = plan.vary { headers[.vary] = vary }
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
        return answer(result, plan: plan, validators: local, ifNoneMatch: ifNoneMatch, cacheHit: cacheHit, start: start)
    }

    /// imgproxy 4's answer for a remote source with the source's validators: the origin asked
    /// with the client's conditions (``ImageService/askOrigin(_:conditions:arrival:)``), its
    /// `304` answered as one, else the result with the origin's validators.
    private func originImage(_ plan: ImageService.Plan, conditions: ValidatorPolicy.Conditions, ifNoneMatch: String?, start: ContinuousClock.Instant,
                             connection: ClientConnection?) async throws -> Response {
        let timeout = service.settings.requestTimeout
        let ticket = try service.admit(deadline: timeout)
        var completedWork = false
        defer { service.gate.leave(ticket, completedWork: completedWork) }
        let service = self.service
        let answer = try await withDeadline(timeout, connection: connection) {
            try await service.askOrigin(plan, conditions: conditions, arrival: ticket.arrival)
        }
        completedWork = true
        switch answer {
        case .notModified(let validators):
            var headers = HTTPFields()
            Self.setValidators(validators, etag: validators.etag, in: &headers)
            headers[.cacheControl] = cacheControl(plan)
            if let vary = plan.vary { headers[.vary] = vary }
            return Response(status: .notModified, headers: headers)
        case .result(let result, let validators, let cacheHit):
            // A digest ETag is checked here (``answer``); the origin's was checked by the origin.
            return self.answer(result, plan: plan, validators: validators, ifNoneMatch: ifNoneMatch, cacheHit: cacheHit, start: start)
        }
    }

    /// The image answer for `result`: its validators (a digest ETag compared with
    /// `ifNoneMatch` here: a match is a `304`), lifetime, type and body; the fallback image's
    /// own status and lifetime and no validators.
    private func answer(_ result: EncodedResult, plan: ImageService.Plan, validators: ValidatorPolicy.Validators, ifNoneMatch: String?,
                        cacheHit: Bool, start: ContinuousClock.Instant) -> Response {
        var headers = HTTPFields()
        var status = HTTPResponse.Status.ok
        if let failure = result.fallbackFor {
            // The fallback image in place of the source: its own status and lifetime, and no
            // validators (it stands for no version of the source; imgproxy drops Last-Modified).
            status = HTTPResponse.Status(code: service.fallbackStatus(for: failure))
            if let maxAge = service.fallbackMaxAge(options: plan.options, status: status.code) {
                headers[.cacheControl] = "public, max-age=\(maxAge)"
            }
            if let vary = plan.vary { headers[.vary] = vary }
        } else {
            let etag = service.validatorPolicy.etag == .digest ? result.etag : validators.etag
            Self.setValidators(validators, etag: etag, in: &headers)
            headers[.cacheControl] = cacheControl(plan)
            if let vary = plan.vary { headers[.vary] = vary }
            if service.validatorPolicy.etag == .digest, let ifNoneMatch, ValidatorPolicy.matches(ifNoneMatch, result.etag) {
                return Response(status: .notModified, headers: headers)
            }
        }
        headers[.contentType] = result.format.mimeType
        headers[.contentLength] = String(result.count)
        headers[.contentDisposition] = Self.contentDisposition(for: plan.url, options: plan.options, format: result.format)
        headers[ServerTiming.field] = result.timing.header(cacheHit: cacheHit, total: start.duration(to: .now))
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: result.body))
    }

    /// A result's `Cache-Control`: the URL's `max_age`, else `--ttl`, within its `expires`.
    private func cacheControl(_ plan: ImageService.Plan) -> String {
        "public, max-age=\(Self.maxAge(timeToLive: plan.options.maxAge ?? service.settings.timeToLive, expires: plan.options.expires))"
    }

    /// Sets `ETag` (`etag`, chosen by the mode) and `Last-Modified` (from `validators`).
    private static func setValidators(_ validators: ValidatorPolicy.Validators, etag: String?, in headers: inout HTTPFields) {
        if let etag { headers[.eTag] = etag }
        if let lastModified = validators.lastModified { headers[.lastModified] = lastModified }
    }

    /// Whether the client's copy of a local source's result is current by its conditions: the
    /// file's ETag (``ETagMode/origin``) or, when no `If-None-Match` was sent, its modification time.
    private static func localFileUnchanged(plan: ImageService.Plan, conditions: ValidatorPolicy.Conditions,
                                           ifNoneMatch: String?, etagMode: ETagMode) -> Bool {
        // Only a local source has a modification time here.
        guard plan.lastModified != nil else { return false }
        if etagMode == .origin, let condition = conditions.ifNoneMatch, let etag = plan.localETag {
            return ValidatorPolicy.matches(condition, etag)
        }
        guard ifNoneMatch == nil, let since = conditions.ifModifiedSince.flatMap(HTTPDate.parse),
              let modified = plan.lastModified else { return false }
        return modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
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

    /// A download name: the source's last path component with the result's extension, reduced
    /// to characters safe in a quoted header value.
    static func fileName(for url: URL, format: ImageFormat) -> String {
        // The last path component without its extension, cut from the decoded path as bytes:
        // `URL`'s path-component methods each parse the URL again, and a lazy filter over
        // Unicode scalars ran as unspecialised generic code, on every response.
        let path = Array(url.path.utf8)
        let start = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        var end = path.endIndex
        if let dot = path[start...].lastIndex(of: UInt8(ascii: ".")), dot != start { end = dot }
        var safe: [UInt8] = []
        for byte in path[start..<end] where isSafeInFileName(byte) {
            safe.append(byte)
            if safe.count == 100 { break }
        }
        return (safe.isEmpty ? "image" : String(decoding: safe, as: UTF8.self)) + "." + format.fileExtension
    }

    /// ASCII letters and digits, `-`, `_` and `.`: a byte of a UTF-8 name kept in a download name
    /// (every byte of a non-ASCII character is above 0x7F, so the character is dropped whole).
    private static func isSafeInFileName(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."): true
        default: false
        }
    }
}

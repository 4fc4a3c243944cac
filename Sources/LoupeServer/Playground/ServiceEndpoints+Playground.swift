import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The playground's routes (``ImageRoutes/Endpoints/playground``): the page at `/`, its files,
/// its configuration, the menu view's sections and, with a key, URL signing.
///
/// Every answer carries a strict Content-Security-Policy: scripts, styles, images and `fetch`
/// from this origin only, no inline script or style, no frames, so the page runs no code but its
/// own even when a pasted URL or a source's answer holds markup.
extension ServiceEndpoints {
    /// The largest body `/playground/sign` signs: a path or a feed's batch body.
    static let largestSignedBody = 64 << 10

    static let contentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// Adds the page at the mount point, its files, its configuration, the menu's sections and
    /// the signer; anything else under `/playground/` is 404.
    func addPlayground<Context: RequestContext>(to routes: RouteCollection<Context>) {
        let page: Handler<Context> = { _, _ in Self.playgroundFile(try PlaygroundFiles.shared.get().html, type: "text/html; charset=utf-8") }
        on(routes, "/", [.get: page, .head: page])
        let files: [(String, @Sendable (PlaygroundFiles) -> String, String)] = [
            ("/playground/app.js", { $0.script }, "text/javascript; charset=utf-8"),
            ("/playground/placeholders.js", { $0.placeholders }, "text/javascript; charset=utf-8"),
            ("/playground/style.css", { $0.style }, "text/css; charset=utf-8"),
        ]
        for (path, text, type) in files {
            let file: Handler<Context> = { _, _ in Self.playgroundFile(text(try PlaygroundFiles.shared.get()), type: type) }
            routes.get(RouterPath(path), use: file)
            routes.head(RouterPath(path), use: file)
        }
        on(routes, "/playground/config.json", [.get: { _, _ in try Self.playgroundJSON(configuration()) }])
        on(routes, "/playground/sign", [.post: { request, _ in try await sign(request) }])
        routes.get("/playground/menu/:section") { _, context in try await menuSection(named: context.parameters.get("section") ?? "") }
        missing(routes, "/playground/**")
    }

    /// What the page needs to know: how URLs are signed here and the samples it offers.
    private func configuration() -> [String: Any] {
        let settings = service.settings
        let signing = !settings.keys.isEmpty ? "key" : settings.servesUnsigned ? "unsigned" : "none"
        let samples = settings.playgroundSamples
        return [
            "signing": signing, "photos": samples.photos, "feed": samples.feed,
            "menu": samples.menu.map { ["name": $0.name, "count": $0.items.count] as [String: Any] },
        ]
    }

    /// Signs the body (a URL's path after the signature, or a batch body) with the first key
    /// pair; 404 without a key, as an endpoint that does not exist.
    private func sign(_ request: Request) async throws -> Response {
        guard !service.settings.keys.isEmpty else {
            throw ServiceError(404, "notFound", "this server has no signing key: its URLs are unsigned ('insecure')")
        }
        let body = try await RequestBodyLimit(maximumBytes: Self.largestSignedBody, deadline: service.settings.requestTimeout,
                                              tooLargeMessage: "the playground signs at most \(Self.largestSignedBody) bytes").read(request)
        guard let text = String(validating: Data(buffer: body), as: UTF8.self), !text.isEmpty else {
            throw ServiceError.badURL("the body to sign must be UTF-8 text: a path such as /rs:fit:300:300/plain/<source>, or a batch body")
        }
        return try Self.playgroundJSON(["signature": service.signer.signature(for: text) ?? ""])
    }

    /// A menu section's items after its latency, or its failure.
    private func menuSection(named name: String) async throws -> Response {
        guard let section = service.settings.playgroundSamples.menu.first(where: { $0.name == name }) else {
            throw ServiceError(404, "notFound", "the menu has no section '\(name.prefix(64))'")
        }
        try await Task.sleep(for: section.latency)
        if section.fails {
            throw ServiceError(503, "sectionUnavailable", "the '\(section.name)' section failed (a failure the development server makes on purpose)")
        }
        return try Self.playgroundJSON(["name": section.name, "items": section.items])
    }

    private static func playgroundFile(_ text: String, type: String) -> Response {
        var headers = playgroundHeaders()
        headers[.contentType] = type
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }

    private static func playgroundJSON(_ object: [String: Any]) throws -> Response {
        var headers = playgroundHeaders()
        headers[.contentType] = "application/json"
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: data)))
    }

    private static func playgroundHeaders() -> HTTPFields {
        var headers = HTTPFields()
        headers[.cacheControl] = "no-store"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers[.xContentTypeOptions] = "nosniff"
        return headers
    }
}

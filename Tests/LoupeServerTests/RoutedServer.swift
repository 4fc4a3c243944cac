import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import LoupeCodecs
@testable import LoupeServer
import NIOCore
import NIOHTTP1
import Testing

/// An `ImageServer`'s routes answered in the test's own process, without a socket
/// (HummingbirdTesting's router mode): every route, middleware and answer of `loupe serve`, for
/// the tests that need no connection. What needs one — faults, deadlines, overload, clients that
/// leave, signals — uses ``RunningServer``.
struct RoutedServer: Sendable {
    let server: ImageServer
    let client: any TestClientProtocol

    /// Opens a server with `settings`, runs `body` against its router, then flushes its caches.
    /// The server logs to `logger` (by default errors only, to standard error).
    static func with<T: Sendable>(
        _ settings: ServerSettings, accessLog: Logger? = nil, logger: Logger? = nil, _ body: @Sendable (RoutedServer) async throws -> T
    ) async throws -> T {
        var quiet = Logger(label: "loupe.serve.test")
        quiet.logLevel = .error
        let logger = logger ?? quiet
        let server = try ImageServer(settings: settings, logger: logger, accessLog: accessLog)
        let app = Application(router: server.routes.router(endpoints: server.endpoints, connections: nil), logger: logger)
        let result: Result<T, any Error>
        do {
            result = .success(try await app.test(.router) { client in try await body(RoutedServer(server: server, client: client)) })
        } catch {
            result = .failure(error)
        }
        await server.flushCaches()
        return try result.get()
    }

    /// Sends `method path` with `headers` and reads the whole answer.
    func request(
        _ path: String, method: NIOHTTP1.HTTPMethod = .GET, headers: [(String, String)] = [], body: Data? = nil
    ) async throws -> RunningServer.Answer {
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let name = HTTPField.Name(name) else { throw TestFailure("bad header name \(name)") }
            fields.append(HTTPField(name: name, value: value))
        }
        let response = try await client.execute(uri: path, method: HTTPRequest.Method(rawValue: method.rawValue) ?? .get, headers: fields,
                                                body: body.map { ByteBuffer(data: $0) })
        return RunningServer.Answer(status: Int(response.status.code),
                                    headers: HTTPHeaders(response.headers.map { ($0.name.rawName, $0.value) }),
                                    body: Data(buffer: response.body))
    }

    /// Requests `path` and expects a 200 with an image of `format` and that size; whether it got one.
    @discardableResult
    func expectImage(_ path: String, format: ImageFormat, width: Int, height: Int,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws -> Bool {
        let answer = try await request(path)
        #expect(answer.status == 200, "\(path): \(String(decoding: answer.body, as: UTF8.self))", sourceLocation: sourceLocation)
        guard answer.status == 200 else { return false }
        let image = try ImageDecoder().decode(answer.body, options: DecodingOptions(firstFrameOnly: true))
        #expect(image.metadata.format == format, "\(path)", sourceLocation: sourceLocation)
        #expect((image.metadata.width, image.metadata.height) == (width, height), "\(path)", sourceLocation: sourceLocation)
        return image.metadata.format == format && (image.metadata.width, image.metadata.height) == (width, height)
    }

    /// Requests `path` with one character of its signature (its first segment) changed, and
    /// expects it refused: 403 `badSignature`.
    func expectForgedSignatureRefused(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        var characters = Array(path)
        characters[3] = characters[3] == "A" ? "B" : "A"
        let forged = try await request(String(characters))
        #expect(forged.status == 403, "\(String(characters))", sourceLocation: sourceLocation)
        #expect(forged.json["kind"] as? String == "badSignature", sourceLocation: sourceLocation)
    }
}

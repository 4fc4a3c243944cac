import AsyncHTTPClient
import Foundation
import Logging
import LoupeServer
import NIOCore
import NIOHTTP1

/// A real `ImageServer` on 127.0.0.1 and a free port, for the duration of a test, and an HTTP
/// client (AsyncHTTPClient) to talk to it.
struct RunningServer: Sendable {
    let server: ImageServer
    let port: Int
    let client: HTTPClient

    /// Starts a server with `settings` (host and port are set here), runs `body`, then shuts it
    /// down gracefully and waits for it to end.
    static func with<T: Sendable>(
        _ settings: ServerSettings, accessLog: Logger? = nil, _ body: (RunningServer) async throws -> T
    ) async throws -> T {
        var settings = settings
        settings.host = "127.0.0.1"
        settings.port = 0
        var logger = Logger(label: "loupe.serve.test")
        logger.logLevel = .error
        let server = try ImageServer(settings: settings, logger: logger, accessLog: accessLog)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let running = Task {
            try await server.run { port in
                continuation.yield(port)
                continuation.finish()
            }
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            running.cancel()
            throw TestFailure("the server did not start")
        }
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        // Concurrency tests send 100 requests at once: each gets its own connection (the default
        // 8 per host queue the rest, and under ThreadSanitizer the queue outlived the 10 s
        // connect timeout, which AsyncHTTPClient also applies to waiting for a pooled connection).
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 128
        configuration.timeout.connect = .seconds(60)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let context = RunningServer(server: server, port: port, client: client)
        let result: Result<T, any Error>
        do {
            result = .success(try await body(context))
        } catch {
            result = .failure(error)
        }
        try? await client.shutdown()
        await server.shutDown()
        try await running.value
        return try result.get()
    }

    /// One answered request: status, headers and body.
    struct Answer: Sendable {
        let status: Int
        let headers: HTTPHeaders
        let body: Data

        func header(_ name: String) -> String? { headers.first(name: name) }

        /// The JSON body as a dictionary (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        }
    }

    /// Sends `method path` with `headers` and reads the whole answer.
    func request(_ path: String, method: HTTPMethod = .GET, headers: [(String, String)] = [], body: Data? = nil) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(data: body)) }
        let response = try await client.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Answer(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// imgproxy's "insecure" URL for `source` with `options` (plain form).
func insecurePath(_ options: String, _ source: String, extension ext: String? = nil) -> String {
    let encoded = source.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "@?#%"))) ?? source
    let optionPart = options.isEmpty ? "" : "/" + options
    return "/insecure\(optionPart)/plain/\(encoded)" + (ext.map { "@" + $0 } ?? "")
}

/// Settings for tests: unsigned URLs, sources on 127.0.0.1 allowed through the guard.
func testSettings() -> ServerSettings {
    var settings = ServerSettings()
    settings.allowsUnsigned = true
    settings.addressPolicy = .init(allowsPrivateNetworks: false, permittedAddresses: ["127.0.0.1"])
    settings.workers = 2
    return settings
}

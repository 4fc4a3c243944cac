import Foundation
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `loupe serve`'s playground switch as a real child process: off unless `--playground`,
/// `LOUPE_PLAYGROUND` or `--dev` turns it on; `--dev` fills it with its origin's samples.
@Suite struct ServePlaygroundTests {
    /// Starts `loupe serve` with `arguments` and `environment`, answers `body` with its port, then
    /// stops it with SIGTERM.
    private func withServer<T>(_ arguments: [String], environment: [String: String] = [:],
                               _ body: (Int) async throws -> T) async throws -> T {
        let child = try ServeProcess(["--port", "0", "--quiet"] + arguments, environment: environment)
        defer { child.kill() }
        let port = try await child.port()
        let result = try await body(port)
        child.signal(SIGTERM)
        let status = try await child.waitForExit(timeout: .seconds(30))
        #expect(status == 0)
        return result
    }

    @Test func offUnlessAskedFor() async throws {
        try await withServer(["--allow-unsigned"]) { port in
            let page = try await httpGet(port: port, path: "/"), config = try await httpGet(port: port, path: "/playground/config.json")
            #expect(page.status == 404)
            #expect(config.status == 404)
        }
        try await withServer(["--allow-unsigned", "--playground"]) { port in
            let page = try await httpGet(port: port, path: "/")
            #expect(page.status == 200)
            #expect(String(decoding: page.body, as: UTF8.self).contains("<title>Loupe playground</title>"))
        }
        try await withServer(["--allow-unsigned"], environment: ["LOUPE_PLAYGROUND": "true"]) { port in
            let page = try await httpGet(port: port, path: "/")
            #expect(page.status == 200)
        }
    }

    @Test func devTurnsItOnWithTheOriginsSamples() async throws {
        try await withServer(["--dev"]) { port in
            let page = try await httpGet(port: port, path: "/")
            #expect(page.status == 200)
            let config = try await httpGet(port: port, path: "/playground/config.json")
            let object = try #require(try JSONSerialization.jsonObject(with: config.body) as? [String: Any])
            #expect(object["signing"] as? String == "unsigned")
            #expect((object["photos"] as? [String])?.count == 4)
            #expect((object["feed"] as? [String])?.count == 12)
            let menu = try #require(object["menu"] as? [[String: Any]])
            #expect(menu.compactMap { $0["name"] as? String } == ["main", "soup", "side"])
            let soup = try await httpGet(port: port, path: "/playground/menu/soup")
            #expect(soup.status == 200)
            let side = try await httpGet(port: port, path: "/playground/menu/side")
            #expect(side.status == 503)
        }
    }
}

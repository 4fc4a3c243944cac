import Foundation
import LoupeTestSupport
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A GET over a plain socket-level HTTP client (URLSession): status and body.
func httpGet(port: Int, path: String) async throws -> (status: Int, body: Data) {
    guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw FixtureError("bad path \(path)") }
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LoupeTestSupport

/// A GET over URLSession (another client than the service's own tests use): status and body.
func httpGet(port: Int, path: String) async throws -> (status: Int, body: Data) {
    guard let url = URL(string: "http://127.0.0.1:\(port)\(path)") else { throw FixtureError("bad path \(path)") }
    let (data, response) = try await URLSession.shared.data(from: url)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
}

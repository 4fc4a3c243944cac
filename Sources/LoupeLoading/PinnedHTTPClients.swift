import AsyncHTTPClient
import NIOConcurrencyHelpers
import NIOCore

/// HTTP clients that each connect a host name to one address the guard has checked, so a
/// connection goes exactly where the check said, with the name still in the `Host` header, the
/// TLS server name (SNI) and the certificate check.
///
/// AsyncHTTPClient resolves names itself at connect time and offers no resolver hook, but a
/// client's `dnsOverride` maps a name to an address it then connects to without resolving. The
/// override is fixed per client, so there is one client per (name, address), kept while in use
/// (its pool reuses connections); the least recently used beyond ``capacity`` is let go and shut
/// down once the last load holding it ends.
final class PinnedHTTPClients: Sendable {
    private struct Key: Hashable {
        var host: String
        var address: String
    }

    private struct State {
        var clients: [Key: OwnedHTTPClient] = [:]
        /// Keys from least to most recently used.
        var order: [Key] = []
    }

    /// How many clients are kept.
    let capacity: Int
    private let makeConfiguration: @Sendable (_ dnsOverride: [String: String]) -> HTTPClient.Configuration
    private let state = NIOLockedValueBox(State())

    /// Clients made with `makeConfiguration` (given each one's name-to-address override).
    init(capacity: Int = 64, makeConfiguration: @escaping @Sendable (_ dnsOverride: [String: String]) -> HTTPClient.Configuration) {
        self.capacity = max(1, capacity)
        self.makeConfiguration = makeConfiguration
    }

    /// The client that connects `host` (as AsyncHTTPClient reads it from the URL: IPv6 brackets
    /// removed) to `address`, and only there. An IP literal needs no override: the client
    /// connects to it as it is.
    func client(host: String, address: SocketAddress) -> OwnedHTTPClient {
        let text = address.ipAddress ?? host
        let key = Key(host: host, address: text)
        let (client, evicted) = state.withLockedValue { state -> (OwnedHTTPClient, [OwnedHTTPClient]) in
            if let client = state.clients[key] {
                if let index = state.order.firstIndex(of: key) { state.order.remove(at: index) }
                state.order.append(key)
                return (client, [])
            }
            let isLiteral = (try? SocketAddress(ipAddress: host, port: 0)) != nil
            let client = OwnedHTTPClient(configuration: makeConfiguration(isLiteral ? [:] : [host: text]))
            state.clients[key] = client
            state.order.append(key)
            var evicted: [OwnedHTTPClient] = []
            while state.order.count > capacity, let oldest = state.clients.removeValue(forKey: state.order.removeFirst()) {
                evicted.append(oldest)
            }
            return (client, evicted)
        }
        // Let go outside the lock: the last reference starts the client's shutdown.
        withExtendedLifetime(evicted) {}
        return client
    }
}

/// An `HTTPClient` shut down when the last holder lets go: a loader, its pinned clients, a load
/// still reading a body.
final class OwnedHTTPClient: Sendable {
    let client: HTTPClient

    init(configuration: HTTPClient.Configuration) {
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit {
        // Non-blocking: the client keeps itself alive until its connections are closed. No load
        // is running on it, since each one holds a reference to this owner.
        _ = client.shutdown()
    }
}

import LoupeCaching
import NIOCore

/// What an ``OriginServer`` has seen and what it holds open: request counts per path, and its
/// connections, so `stop()` can close every one of them.
final class OriginRegistry: Sendable {
    private struct State {
        var requestsByPath: [String: Int] = [:]
        var totalRequests = 0
        var connections: [ObjectIdentifier: any Channel] = [:]
        var acceptedConnections = 0
        var isStopped = false
        /// The latest requests, oldest first, at most ``OriginRegistry/requestLogLimit``.
        var requestLog: [OriginRequest] = []
    }

    /// How many requests the log keeps: enough for any test, bounded for `loupe demo`.
    static let requestLogLimit = 1024

    private let state = Locked(State())

    /// Counts a request for `path` (query excluded).
    func countRequest(path: String) {
        state.withLock { state in
            state.requestsByPath[path, default: 0] += 1
            state.totalRequests += 1
        }
    }

    /// Logs `request` with its headers, dropping the oldest past the log's limit.
    func log(_ request: OriginRequest) {
        state.withLock { state in
            if state.requestLog.count >= Self.requestLogLimit { state.requestLog.removeFirst() }
            state.requestLog.append(request)
        }
    }

    /// The logged requests for `path`, oldest first.
    func requests(for path: String) -> [OriginRequest] { state.withLock { $0.requestLog.filter { $0.path == path } } }

    func requestCount(for path: String) -> Int { state.withLock { $0.requestsByPath[path] ?? 0 } }
    var totalRequests: Int { state.withLock { $0.totalRequests } }
    var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
    var openConnections: Int { state.withLock { $0.connections.count } }

    /// Registers a new connection; `false` once the server is stopping (the caller closes it).
    func open(_ channel: any Channel) -> Bool {
        state.withLock { state in
            guard !state.isStopped else { return false }
            state.connections[ObjectIdentifier(channel)] = channel
            state.acceptedConnections += 1
            return true
        }
    }

    /// Forgets a connection that has closed.
    func closed(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }

    /// Refuses new connections from now on and returns those still open, for the caller to close.
    func stop() -> [any Channel] {
        state.withLock { state in
            state.isStopped = true
            return Array(state.connections.values)
        }
    }
}

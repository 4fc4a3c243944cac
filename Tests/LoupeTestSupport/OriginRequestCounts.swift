import LoupeCaching

/// How many requests nginx received per path, read from one settled snapshot of its access log
/// taken at the first question: for code that asks about many paths once the traffic is over
/// (a scroll simulation's hundreds of cells), where a settled read per path would wait 100 ms
/// each.
package final class OriginRequestCounts: Sendable {
    private let server: NginxServer
    private let counts = Locked<[String: Int]?>(nil)

    package init(server: NginxServer) {
        self.server = server
    }

    /// Requests for `path` (as logged, e.g. `/cells/3.jpg`).
    package func count(for path: String) -> Int {
        counts.withLock { counts in
            let snapshot = counts ?? server.loggedPaths().reduce(into: [:]) { $0[$1, default: 0] += 1 }
            counts = snapshot
            return snapshot[path] ?? 0
        }
    }
}

import Foundation
import LoupeCaching

/// How many requests nginx received per path, read once nginx has logged everything.
///
/// nginx writes an access-log line when a request ends, which on a loaded machine can be a
/// moment after the client has the response — counting at once can miss the last requests
/// (seen: 96 of 100). The first ask waits until the log has not grown for `quietPeriod` (at most
/// `timeout`), counts every path, and every later ask reads those counts.
package final class OriginRequestCounts: Sendable {
    private let server: NginxServer
    private let quietPeriod: Duration
    private let timeout: Duration
    private let counts = Locked<Task<[String: Int], Never>?>(nil)

    package init(server: NginxServer, quietPeriod: Duration = .milliseconds(200), timeout: Duration = .seconds(10)) {
        self.server = server
        self.quietPeriod = quietPeriod
        self.timeout = timeout
    }

    /// Requests for `path` (as logged, e.g. `/cells/3.jpg`).
    package func count(for path: String) async -> Int {
        let task = counts.withLock { task in
            if let task { return task }
            let created = Task { [server, quietPeriod, timeout] in
                await Self.idleCounts(server: server, quietPeriod: quietPeriod, timeout: timeout)
            }
            task = created
            return created
        }
        return await task.value[path] ?? 0
    }

    private static func idleCounts(server: NginxServer, quietPeriod: Duration, timeout: Duration) async -> [String: Int] {
        let log = server.prefix.appendingPathComponent("access.log").path
        let size = { ((try? FileManager.default.attributesOfItem(atPath: log))?[.size] as? NSNumber)?.intValue ?? 0 }
        let deadline = ContinuousClock.now + timeout
        var (lastSize, quietSince) = (size(), ContinuousClock.now)
        while ContinuousClock.now < deadline, quietSince.duration(to: .now) < quietPeriod {
            try? await Task.sleep(for: .milliseconds(20))
            let current = size()
            if current != lastSize { (lastSize, quietSince) = (current, .now) }
        }
        return server.loggedPaths().reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }
}

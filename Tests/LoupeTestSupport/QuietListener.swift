import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A TCP listener on an IPv4 loopback address (127.0.0.2, say) that accepts nothing by itself:
/// a client's connection completes its handshake in the kernel and waits in the accept queue,
/// even after the client closed it, before the client's `connect` returns. So
/// ``takePendingConnections()``, called after a client gave up, tells without waiting whether it
/// ever connected: the proof that a guard refused an address before connecting to it.
package final class QuietListener: Sendable {
    /// The address listened on.
    package let host: String
    /// The port the kernel chose.
    package let port: Int
    private let descriptor: Int32

    /// Listens on `host` (an IPv4 address) and a free port.
    package init(host: String) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw FixtureError("socket failed") }
        do {
            port = try bindToFreePort(fd, host: host)
            guard listen(fd, 16) == 0 else { throw FixtureError("listen on \(host) failed") }
            let flags = fcntl(fd, F_GETFL)
            guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0 else { throw FixtureError("fcntl failed") }
        } catch {
            close(fd)
            throw error
        }
        self.host = host
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Accepts (and closes) every connection waiting now and returns how many there were;
    /// never waits. Bounded by the listen backlog.
    package func takePendingConnections() -> Int {
        var count = 0
        while count < 1_024 {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else { break }
            close(connection)
            count += 1
        }
        return count
    }
}

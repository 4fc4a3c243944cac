import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain TCP client on loopback, to see what a server (the origin, the service) puts on the wire (a reset, a short
/// body, a client that stops reading) where an HTTP client would hide it behind its own errors.
/// Blocking socket calls run on threads of their own, never on the cooperative pool, and every
/// receive is bounded by a socket timeout.
package final class RawHTTPConnection: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: `fd` is immutable after `init`; the tests use one
    // connection from one task at a time, each call awaiting the thread it starts, so no
    // two calls ever touch the socket concurrently.
    private let fd: Int32

    /// How a read ended.
    package enum End: Equatable {
        /// The server closed the connection in order (FIN).
        case closed
        /// The server reset the connection (RST: `ECONNRESET`).
        case reset
        /// Nothing arrived for the receive timeout.
        case timedOut
        /// Enough arrived: the byte limit, or what the caller's completeness check wanted.
        case limit
        /// Another error (`errno`).
        case failed(Int32)
    }

    /// Connects to 127.0.0.1:`port`; each receive waits at most `receiveTimeout` for data (the
    /// default bounds "never", with room for a test process whose two cores are busy).
    package init(port: Int, receiveTimeout: Duration = .seconds(30)) throws {
        // Stored only once connected: an initializer that throws after every property is set
        // runs `deinit`, which would close the descriptor a second time, and by then its number
        // may be another thread's file (seen: a disk cache segment read failing with EBADF).
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        let seconds = receiveTimeout.components.seconds
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(receiveTimeout.components.attoseconds / 1_000_000_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let code = errno
            close(fd)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends a `GET` of `path`.
    package func sendGET(_ path: String, keepAlive: Bool = true) async {
        await send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n" + (keepAlive ? "" : "Connection: close\r\n") + "\r\n")
    }

    /// Sends `text` as it is.
    package func send(_ text: String) async {
        await blocking { [fd] in
            _ = Array(text.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// Reads until `limit` bytes arrived, the connection ended, or what arrived satisfies
    /// `isComplete` (checked after each read).
    package func receive(upTo limit: Int, until isComplete: @escaping @Sendable ([UInt8]) -> Bool = { _ in false }) async -> (bytes: [UInt8], end: End) {
        await blocking { [fd] in
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            // Bounded: every round either adds bytes (up to `limit`) or ends the loop.
            while received.count < limit, !isComplete(received) {
                let wanted = min(buffer.count, limit - received.count)
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, wanted, 0) }
                if count > 0 {
                    received += buffer[0..<count]
                } else if count == 0 {
                    return (received, .closed)
                } else {
                    switch errno {
                    case ECONNRESET: return (received, .reset)
                    case EAGAIN, EWOULDBLOCK: return (received, .timedOut)
                    case let code: return (received, .failed(code))
                    }
                }
            }
            return (received, .limit)
        }
    }

    /// Runs blocking `work` on a thread of its own: Dispatch's global queue runs only as many
    /// blocked items at once as there are cores, which serialized the tests' receives.
    private func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }
}

/// An HTTP/1.1 response as bytes: head fields and the body bytes that followed the head.
package struct RawResponse {
    package var statusLine: String
    package var headers: [String: String]
    package var body: [UInt8]

    /// Splits `bytes` at the end of the head; `nil` when no complete head arrived.
    package init?(_ bytes: [UInt8]) {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let end = (0...max(0, bytes.count - separator.count)).first(where: { bytes[$0..<min(bytes.count, $0 + 4)].elementsEqual(separator) }),
              bytes.count >= end + 4
        else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        statusLine = lines.first ?? ""
        headers = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        body = Array(bytes[(end + 4)...])
    }
}

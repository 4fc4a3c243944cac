import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// Resolves a host name with the system resolver (`getaddrinfo`: /etc/hosts and the configured
/// DNS answer as they do for every other program), once per hop, for the address guard to judge
/// what the connection will use.
enum HostResolution {
    /// Every address `host` resolves to (port 0), in the resolver's order; an IP literal (with or
    /// without IPv6 brackets) is its own answer, without a lookup.
    ///
    /// The lookup blocks, so it runs on NIO's pool of threads for blocking work, never on the
    /// cooperative pool nor Dispatch's global queues (on Linux the same threads: a lookup there
    /// waited behind CPU-bound work for seconds). `getaddrinfo` cannot be interrupted, so the
    /// caller's cancellation (a download's deadline) ends the wait at once and the lookup
    /// finishes on its thread, its answer dropped.
    static func addresses(of host: String) async throws -> [SocketAddress] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if let literal = try? SocketAddress(ipAddress: name, port: 0) { return [literal] }
        let waiter = Waiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiter.wait(continuation) else { return }
                NIOThreadPool.singleton.submit { state in
                    waiter.finish(state == .active ? .success(lookUp(name)) : .failure(CancellationError()))
                }
            }
        } onCancel: {
            waiter.finish(.failure(CancellationError()))
        }
    }

    /// One caller's continuation, resumed exactly once: by the lookup or by cancellation,
    /// whichever comes first, including a cancellation that arrived before the wait began.
    private final class Waiter: Sendable {
        private enum State {
            case idle
            case waiting(CheckedContinuation<[SocketAddress], any Error>)
            case finished
        }

        private let state = NIOLockedValueBox(State.idle)

        /// Holds `continuation`; `false` (having resumed it with `CancellationError`) when the
        /// caller was cancelled already.
        func wait(_ continuation: CheckedContinuation<[SocketAddress], any Error>) -> Bool {
            let cancelled = state.withLockedValue { state -> Bool in
                guard case .idle = state else { return true }
                state = .waiting(continuation)
                return false
            }
            if cancelled { continuation.resume(throwing: CancellationError()) }
            return !cancelled
        }

        /// Resumes the waiting caller with `result`; later calls do nothing.
        func finish(_ result: Result<[SocketAddress], any Error>) {
            let continuation = state.withLockedValue { state -> CheckedContinuation<[SocketAddress], any Error>? in
                defer { state = .finished }
                guard case .waiting(let continuation) = state else { return nil }
                return continuation
            }
            continuation?.resume(with: result)
        }
    }

    /// `getaddrinfo`'s TCP addresses for `name`; empty when it does not resolve.
    private static func lookUp(_ name: String) -> [SocketAddress] {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var node = list
        while let entry = node?.pointee {
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee }
                addresses.append(SocketAddress(address, host: name))
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                let address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee }
                addresses.append(SocketAddress(address, host: name))
            }
            node = entry.ai_next
        }
        return addresses
    }
}

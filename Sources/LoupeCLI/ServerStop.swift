/// Why `loupe serve` ended other than by a graceful shutdown.
enum ServerStop: Error, Sendable, Equatable, CustomStringConvertible {
    /// A second SIGTERM or SIGINT arrived while the graceful shutdown was still running.
    case secondSignal

    /// One line for the operator: what stopped the server.
    var description: String {
        switch self {
        case .secondSignal: "stopped by a second signal before requests in flight finished"
        }
    }
}

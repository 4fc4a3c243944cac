/// Runs `body`, or throws the service's 504 after `timeout`, or cancels it when `connection`'s
/// client goes away.
func withDeadline<T: Sendable>(
    _ timeout: Duration, connection: ClientConnection? = nil, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: timeout)
            throw ServiceError.timedOut
        }
        if let connection {
            group.addTask {
                await connection.waitUntilClosed()
                throw ServiceError.clientGone
            }
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw ServiceError.timedOut }
        return first
    }
}

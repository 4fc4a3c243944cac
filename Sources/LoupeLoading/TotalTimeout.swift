/// Runs `operation`, cancelling it and throwing `DataLoadingError.timedOut(.total)` if it has not
/// finished within `limit`.
///
/// Both HTTP clients were measured to ignore a total limit once the body streams: against nginx
/// dripping 100 KB at 4 KB/s, AsyncHTTPClient's request deadline and URLSession's
/// `timeoutIntervalForResource` each let a 1.5 s limit run 24 s. So the limit is enforced here,
/// above the client, the same way for every loader (`package`: LoupeURLSessionLoading's loader
/// uses it too).
package func withTotalTimeout<Value: Sendable>(
    _ limit: Duration,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        // Whichever child finishes first decides; the other is cancelled, and the group waits
        // for it, so no transfer outlives this call.
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DataLoadingError.timedOut(.total)
        }
        return value
    }
}

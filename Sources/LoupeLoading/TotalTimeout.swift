/// Runs `operation`, cancelling it and throwing `DataLoadingError.timedOut(stage())` if it has
/// not finished within `limit`, or by the download's shared deadline (``DownloadDeadline``) when
/// that comes sooner.
///
/// Both HTTP clients were measured to ignore a total limit once the body streams: against nginx
/// dripping 100 KB at 4 KB/s, AsyncHTTPClient's request deadline and URLSession's
/// `timeoutIntervalForResource` each let a 1.5 s limit run 24 s. So the limit is enforced here,
/// above the client, the same way for every loader (`package`: LoupeURLSessionLoading's loader
/// uses it too). `stage` is asked when the time runs out, so the error says where the load was.
package func withTotalTimeout<Value: Sendable>(
    _ limit: Duration,
    stage: @escaping @Sendable () -> DataLoadingError.TimeoutStage = { .total },
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let end = DownloadDeadline.end(withLimit: limit)
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(until: end, clock: .continuous)
            return nil
        }
        // Whichever child finishes first decides; the other is cancelled, and the group waits
        // for it, so no transfer outlives this call.
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw DataLoadingError.timedOut(stage())
        }
        return value
    }
}

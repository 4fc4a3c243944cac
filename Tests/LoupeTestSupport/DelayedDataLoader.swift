import LoupeLoading

/// Waits `latency` before every load by `base`: a real loopback origin made to answer like one
/// farther away, for tests and benchmarks of what latency does to lists (nginx-light has no
/// module that delays a response). The wait is cancellable, like a request still on its way.
package struct DelayedDataLoader: DataLoading {
    package let base: any DataLoading
    package let latency: Duration

    package init(_ base: any DataLoading, latency: Duration) {
        self.base = base
        self.latency = latency
    }

    package func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        try await Task.sleep(for: latency)
        return try await base.loadData(for: request, progress: progress)
    }
}

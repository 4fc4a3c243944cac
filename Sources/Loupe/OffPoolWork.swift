import Dispatch

/// Runs blocking, CPU-bound `work` (decoding, resizing) on a Dispatch worker thread and waits
/// for it without blocking a thread of Swift's cooperative pool.
///
/// The cooperative pool has one thread per core; a decode running on it holds that thread for
/// milliseconds, and with every core decoding, continuations of unrelated tasks (memory hits,
/// network callbacks) wait behind it. The pipeline bounds how many run at once with a
/// `WorkQueue`; this keeps those that run off the pool.
package func runOffCooperativePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

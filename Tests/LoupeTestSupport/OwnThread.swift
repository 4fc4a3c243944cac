import Foundation

/// Runs `body` on a thread of its own and awaits its result without occupying a thread of the
/// cooperative pool (one per core). The crash and concurrency tests block for seconds on file
/// I/O, child processes and sleeps; on the pool they would starve the async tests running beside
/// them. `body` reports what it saw through its result: expectations are checked by the caller,
/// in the test's task.
package func onOwnThread<Result: Sendable>(_ body: @escaping @Sendable () throws -> Result) async throws -> Result {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Swift.Result { try body() }) }.start()
    }
}

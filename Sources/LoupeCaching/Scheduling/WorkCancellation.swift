#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Whether synchronous work that runs off its task (on a ``WorkQueue``'s worker thread) is still
/// wanted: the one cancellation signal that CPU-bound loops and encoders read.
///
/// `Task.isCancelled` cannot answer on a worker thread, which runs no task; a request whose
/// deadline passed, or whose last caller left, must still stop its blur or encode within a
/// bounded time instead of holding a worker (and its memory) to the end. The queue creates one
/// for each piece of off-pool work, cancels it when the waiting task is cancelled, and installs
/// it as its thread's ``current`` while the work runs; long loops call ``checkpoint()`` between
/// bands of rows or frames (a relaxed atomic load behind a thread-local read: a few nanoseconds,
/// never per pixel), and C encoders poll it from their libraries' progress callbacks.
public final class WorkCancellation: Sendable {
    private let flag = Atomic<Bool>(false)

    /// A signal not cancelled yet.
    public init() {}

    /// Asks the work to stop at its next check. Idempotent.
    public func cancel() {
        flag.store(true, ordering: .relaxed)
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { flag.load(ordering: .relaxed) }

    /// Throws `failure` (the caller's own typed cancellation error) once ``cancel()`` was called:
    /// the check a loop makes between bands of rows or frames.
    @inline(__always)
    public func check<Failure: Error>(_ failure: @autoclosure () -> Failure) throws(Failure) {
        if isCancelled { throw failure() }
    }

    /// The signal of the work running on this thread; `nil` outside work that can be cancelled
    /// (a caller running processors itself, a benchmark), where nothing stops early.
    public static var current: WorkCancellation? {
        guard let threadKey, let pointer = pthread_getspecific(threadKey) else { return nil }
        return Unmanaged<WorkCancellation>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Whether the work running on this thread has been cancelled: what loops check between
    /// bands, and throw their own typed error for.
    public static var isCurrentCancelled: Bool { current?.isCancelled ?? false }

    /// Runs `body` with `self` as this thread's ``current``, then restores the previous one
    /// (installations nest: work that runs other work inline keeps the outer signal after).
    public func install<T>(_ body: () throws -> T) rethrows -> T {
        guard let threadKey = Self.threadKey else { return try body() }
        let previous = pthread_getspecific(threadKey)
        // Retained for as long as it is installed: the thread's slot holds a reference
        // that `current` borrows.
        let retained = Unmanaged.passRetained(self)
        pthread_setspecific(threadKey, retained.toOpaque())
        defer {
            pthread_setspecific(threadKey, previous)
            retained.release()
        }
        return try body()
    }

    /// The thread-local slot; created once per process, never deleted (the threads that read it
    /// live as long as the process). `nil` when the system has no key left to give: work then
    /// runs to its end, as it would without a signal.
    private static let threadKey: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()
}

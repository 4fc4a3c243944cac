#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// State guarded by a `pthread_mutex_t`: the lock every Loupe module uses instead of
/// `Synchronization.Mutex`.
///
/// Why not `Mutex`: on Linux it is built on futexes inside the (uninstrumented) standard library,
/// so ThreadSanitizer cannot see its synchronization and reports every guarded access as a race
/// (reproduced with a 200-task dictionary update: `Mutex` reported, a pthread lock clean). Our
/// CI runs the concurrency tests under ThreadSanitizer and fails on any report, so the lock must
/// be one it understands. Uncontended, a pthread lock pair measured 7–10 ns here against 13 ns for
/// `Mutex`, so nothing is lost.
@usableFromInline
package final class Locked<State>: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the state is only read or written inside `withLock`, which
    // holds `mutex` for the whole access, so no two threads touch it at once. The state enters
    // through a `sending` initializer parameter and leaves only as `sending` results, exactly as
    // with the standard library's `Mutex`, so non-Sendable state cannot escape to another
    // isolation domain while still reachable from here. The mutex lives at a stable heap address
    // (pthread mutexes must not move) and is destroyed only in `deinit`, when no one can hold it.
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer rather than a stored `var`: a class property would pay a dynamic
    // exclusivity check on every access, which the mutex already makes redundant.
    @usableFromInline let state: UnsafeMutablePointer<State>

    /// Guards `initialState`.
    package init(_ initialState: sending State) {
        state = .allocate(capacity: 1)
        state.initialize(to: initialState)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Runs `body` with exclusive access to the state. `body` must not call back into the same
    /// lock (it would deadlock) and should be short: everyone else waits for it.
    @inlinable
    package func withLock<Result, Failure: Error>(
        _ body: (inout sending State) throws(Failure) -> sending Result
    ) throws(Failure) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The executor a ``SingleFlightLoader``'s loads prefer, so that a load resumed by a worker
/// thread at the end of its off-pool work (``WorkQueue/runOffPool(priority:_:)``) goes on on
/// that same thread, right after, instead of through Swift's global executor.
///
/// Through the global executor, each resumption wakes a thread of the cooperative pool while
/// the worker goes to sleep, and a pipeline's load is several tasks, one a stage: the decode's
/// load resumes, hands its image to the final image's load, which hands it to the caller. On a
/// quiet two-core machine every such wake-up crosses cores, and the kernel's share of a
/// thumbnail load was several times the pipeline's own code. Here the stages' loads run on the
/// worker one after the other while its cache still holds the image, and only the caller's
/// task, which has no preference for this executor, is woken on the pool.
///
/// A job is enqueued here when a preferring task is resumed or started. On a worker thread
/// inside ``resumingHere(_:)``, it runs on that thread once the resume returns, and so does
/// what it resumes in turn of the same kind. Anywhere else (a download finished on an event
/// loop, a cancellation, a load started from the pool) it goes to the global executor, as it
/// would without the preference, and runs there to its next suspension without hopping again.
@usableFromInline
final class WorkerHandoff: TaskExecutor {
    /// The one executor: it holds no state, each worker thread's ``ThreadState`` does.
    @usableFromInline static let shared = WorkerHandoff()

    private init() {}

    @usableFromInline
    func enqueue(_ job: consuming ExecutorJob) {
        if let state = ThreadState.current, state.collecting || state.runningJobs {
            state.jobs.append(UnownedJob(job))
        } else {
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// Calls `resume` (which resumes a task waiting for work this worker thread did), then runs
    /// here what that enqueued on this executor, up to each task's next suspension.
    ///
    /// The first off-pool work those tasks start is kept for this thread
    /// (``keepForThisThread(_:)``), which is free for it as soon as they suspend.
    static func resumingHere(_ resume: () -> Void) {
        guard let state = ThreadState.current ?? ThreadState.install() else { return resume() }
        state.collecting = true
        resume()
        state.collecting = false
        state.runningJobs = true
        // Bounded by the tasks: each job runs to its task's next suspension, and what it
        // enqueues here is a further step of the same loads.
        while !state.jobs.isEmpty {
            state.jobs.removeFirst().runSynchronously(on: shared.asUnownedTaskExecutor())
        }
        state.runningJobs = false
    }

    /// Keeps `work` for this worker thread when a task running here (``resumingHere(_:)``)
    /// starts it, unless work is kept already (more goes to the shared threads, where idle ones
    /// take it at once); returns whether it did.
    static func keepForThisThread(_ work: @escaping @Sendable () -> Void) -> Bool {
        guard let state = ThreadState.current, state.runningJobs, state.kept == nil else { return false }
        state.kept = work
        return true
    }

    /// Whether work is kept for this thread.
    static var keepsWork: Bool { ThreadState.current?.kept != nil }

    /// Runs the work kept for this thread, if any; the worker loop calls it between works.
    static func runKeptWork() {
        while let work = ThreadState.current?.kept.take() {
            work()
        }
    }

    /// One worker thread's hand-off state; only that thread touches it.
    private final class ThreadState {
        /// Jobs enqueued here while ``collecting`` or ``runningJobs``, run in order.
        var jobs: [UnownedJob] = []
        /// Set while the thread resumes a task.
        var collecting = false
        /// Set while the thread runs the jobs that resumption enqueued.
        var runningJobs = false
        /// Off-pool work those jobs started, which this thread runs next.
        var kept: (@Sendable () -> Void)?

        static var current: ThreadState? {
            guard let threadKey, let pointer = pthread_getspecific(threadKey) else { return nil }
            return Unmanaged<ThreadState>.fromOpaque(pointer).takeUnretainedValue()
        }

        /// This thread's state, made on its first hand-off and kept for the thread's life: worker
        /// threads live as long as the process, so it is one small object per worker, never freed.
        static func install() -> ThreadState? {
            guard let threadKey else { return nil }
            let state = ThreadState()
            pthread_setspecific(threadKey, Unmanaged.passRetained(state).toOpaque())
            return state
        }

        /// Created once per process, never deleted; `nil` when the system has no key left, and
        /// then every task goes on through the global executor.
        static let threadKey: pthread_key_t? = {
            var key = pthread_key_t()
            return pthread_key_create(&key, nil) == 0 ? key : nil
        }()
    }
}

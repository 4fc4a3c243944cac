/// A priority that may change while the work it describes waits or runs: a caller's own, which
/// it can raise or lower (a list cell scrolling into or out of view), or a shared load's, which
/// is always the highest of its waiters' priorities at the moment it is read.
///
/// Swift tasks can be escalated but never lowered, and a queue cannot see an escalation after
/// it has sorted its work; so the queues that order loads (``WorkQueue``) read this value live
/// each time they choose what to run next, instead of the task's priority.
public final class LoadPriority: Sendable {
    private enum Source {
        case own(Locked<TaskPriority>)
        case derived(@Sendable () -> TaskPriority)
    }

    private let source: Source

    /// A priority owned by its creator, starting at `initial`.
    public init(_ initial: TaskPriority) {
        source = .own(Locked(initial))
    }

    /// A priority computed on every read, e.g. the highest of a shared load's waiters.
    package init(derived compute: @escaping @Sendable () -> TaskPriority) {
        source = .derived(compute)
    }

    /// The priority now.
    public var value: TaskPriority {
        switch source {
        case .own(let value): value.withLock { $0 }
        case .derived(let compute): compute()
        }
    }

    /// Changes a priority created with ``init(_:)``. Work ordered by it, and every shared load
    /// it waits for, see the new value the next time they choose. A load's own priority (the
    /// one ``SingleFlightLoader`` hands to a load) follows its waiters and cannot be set.
    public func update(to priority: TaskPriority) {
        if case .own(let value) = source { value.withLock { $0 = priority } }
    }
}

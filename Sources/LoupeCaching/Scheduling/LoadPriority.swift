import Synchronization

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

    /// Advances whenever some priority may have changed: an ``update(to:)``, or a waiter joining
    /// or leaving a shared load. A queue that sorted its work by priorities it read at an
    /// earlier value must read them again; at the same value its order still holds, so it need
    /// not read them at all (reading a shared load's priority takes locks).
    @usableFromInline package static let changes = Atomic<UInt64>(0)

    /// Records that priorities may have changed (see ``changes``).
    @usableFromInline package static func noteChange() {
        changes.add(1, ordering: .releasing)
    }

    /// A priority owned by its creator, starting at `initial`.
    public init(_ initial: TaskPriority) {
        source = .own(Locked(initial))
    }

    /// A priority computed on every read, e.g. the highest of a shared load's waiters.
    @usableFromInline package init(derived compute: @escaping @Sendable () -> TaskPriority) {
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
        if case .own(let value) = source {
            value.withLock { $0 = priority }
            Self.noteChange()
        }
    }
}

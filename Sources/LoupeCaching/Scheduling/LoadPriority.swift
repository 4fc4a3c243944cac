import Synchronization

/// A priority that may change while the work it describes waits or runs: a caller's own, which
/// it can raise or lower (a list cell scrolling into or out of view), or a shared load's, which
/// is always the highest of its waiters' priorities at the moment it is read.
///
/// Swift tasks can be escalated but never lowered, and a queue cannot see an escalation after
/// it has sorted its work; so the queues that order loads (``WorkQueue``) read this value live
/// each time they choose what to run next, instead of the task's priority.
///
/// A priority may also carry an arrival: the work's place in a first-come, first-served line
/// (a service's requests, which must not wait behind ones that came after them). Among equal
/// priorities a ``WorkQueue`` starts the earliest arrival first instead of the newest work; a
/// shared load's arrival is its earliest waiter's, so work joined by several requests keeps the
/// place of the first of them.
public final class LoadPriority: Sendable {
    /// A priority and arrival read together (a shared load's from one look at its waiters).
    @usableFromInline package struct Standing: Sendable, Equatable {
        @usableFromInline package var priority: TaskPriority
        @usableFromInline package var arrival: UInt64?

        @usableFromInline package init(priority: TaskPriority, arrival: UInt64?) {
            self.priority = priority
            self.arrival = arrival
        }
    }

    private enum Source {
        case own(Locked<TaskPriority>, arrival: UInt64?)
        case derived(@Sendable () -> Standing)
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
    ///
    /// - Parameter initial: the priority to start at; ``update(to:)`` changes it later.
    public init(_ initial: TaskPriority) {
        source = .own(Locked(initial), arrival: nil)
    }

    /// A priority owned by its creator, starting at `initial`, for work served in order of
    /// `arrival` among equal priorities (lower arrives earlier).
    package init(_ initial: TaskPriority, arrival: UInt64) {
        source = .own(Locked(initial), arrival: arrival)
    }

    /// A priority and arrival computed on every read, e.g. the highest priority and the
    /// earliest arrival of a shared load's waiters.
    @usableFromInline package init(derived compute: @escaping @Sendable () -> Standing) {
        source = .derived(compute)
    }

    /// The priority now.
    public var value: TaskPriority { standing.priority }

    /// The arrival, if the work has a place in a first-come, first-served line.
    package var arrival: UInt64? { standing.arrival }

    /// The priority and the arrival now.
    @usableFromInline package var standing: Standing {
        switch source {
        case .own(let value, let arrival): Standing(priority: value.withLock { $0 }, arrival: arrival)
        case .derived(let compute): compute()
        }
    }

    /// Changes a priority created with ``init(_:)``. Work ordered by it, and every shared load
    /// it waits for, see the new value the next time they choose. A load's own priority (the
    /// one ``SingleFlightLoader`` hands to a load) follows its waiters and cannot be set.
    ///
    /// - Parameter priority: the new priority; ignored for a load's priority.
    public func update(to priority: TaskPriority) {
        if case .own(let value, _) = source {
            value.withLock { $0 = priority }
            Self.noteChange()
        }
    }
}

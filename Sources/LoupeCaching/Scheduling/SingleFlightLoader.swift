import Synchronization

/// Loads values by key with at most one load in flight per key, shared by every caller that asks
/// for that key while it runs, and keeps the results in a ``MemoryCache``.
///
/// This is the machinery apps build by hand with an actor and a dictionary of `Task`s
/// (the prefetching list's `Prefetcher`, the `OngoingTaskStore` of ten views, one image), without their pitfalls:
/// - A memory hit is a synchronous lookup under a lock: no actor hop, no suspension.
/// - Ten callers for one key start one load and all get its result (ten views, one image). There is no
///   window in which a second load for the same key can start, so a slower duplicate can never
///   overwrite a result (the reentrancy race).
/// - A caller that is cancelled stops waiting at once with `CancellationError`; the shared load is
///   cancelled only when no caller (and no prefetch) still wants it. Cancelling a prefetch does
///   not fail a caller that joined it (the prefetching list).
/// - The load runs at the highest priority among its waiters and is escalated when a
///   higher-priority caller joins (a visible cell joining a background prefetch).
///
/// Failures are not cached: the next call after a failure loads again. It is generic over key
/// and value; nothing in it knows about images.
public final class SingleFlightLoader<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Produces the value for a key. Runs in its own task, at the priority of its waiters; it
    /// should check for cancellation, which happens when its last waiter leaves.
    public typealias Load = @Sendable (Key) async throws -> Value

    /// A ``Load`` that also receives the load's priority: the highest of its waiters' at the
    /// moment it is read, for ordering its work in a ``WorkQueue`` or passing on to the loads it
    /// waits for itself.
    public typealias PrioritizedLoad = @Sendable (Key, LoadPriority) async throws -> Value

    /// A ``PrioritizedLoad`` that asks this same loader for other keys — an image made by a
    /// chain of steps from the image one step shorter, say, so that chains sharing a prefix
    /// compute it once. It receives the loader with each call: a load that held the loader
    /// itself would keep it alive, and the loader holds its load.
    public typealias RecursiveLoad = @Sendable (SingleFlightLoader, Key, LoadPriority) async throws -> Value

    /// Where finished values are kept; `nil` when the loader only coalesces.
    public let memoryCache: MemoryCache<Key, Value>?
    /// Where a load started for a caller that waits runs until it first suspends.
    public let loadStart: LoadStart

    @usableFromInline let load: RecursiveLoad
    @usableFromInline let cost: @Sendable (Value) -> Int
    @usableFromInline let flights = Locked<[Key: Flight]>([:])
    @usableFromInline let nextID = Atomic<UInt64>(0)

    /// Creates a loader.
    ///
    /// - Parameters:
    ///   - memoryCache: where results are stored and looked up first; `nil` to only coalesce.
    ///   - cost: each value's cost in the memory cache's unit (for images: bytes of pixels).
    ///   - load: produces the value for a key when it is neither cached nor already loading.
    public convenience init(
        memoryCache: MemoryCache<Key, Value>? = MemoryCache(),
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        load: @escaping Load
    ) {
        self.init(memoryCache: memoryCache, cost: cost, recursiveLoad: { _, key, _ in try await load(key) })
    }

    /// Creates a loader whose load receives its live priority (see ``PrioritizedLoad``).
    ///
    /// - Parameters:
    ///   - memoryCache: where results are stored and looked up first; `nil` to only coalesce. The
    ///     default cache has no cost, count or age limit.
    ///   - cost: each value's cost in the memory cache's unit (for images: bytes of pixels).
    ///   - loadStart: where a load started for a caller that waits for it runs until it first
    ///     suspends (``LoadStart``); `.queued` by default. Prefetches always start queued.
    ///   - prioritizedLoad: produces the value for a key when it is neither cached nor already loading,
    ///     receiving the load's live priority: the highest of its waiters' at the moment it is read.
    public convenience init(
        memoryCache: MemoryCache<Key, Value>? = MemoryCache(),
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        loadStart: LoadStart = .queued,
        prioritizedLoad: @escaping PrioritizedLoad
    ) {
        self.init(memoryCache: memoryCache, cost: cost, loadStart: loadStart,
                  recursiveLoad: { _, key, priority in try await prioritizedLoad(key, priority) })
    }

    /// Creates a loader whose load receives the loader and its live priority (see
    /// ``RecursiveLoad``).
    ///
    /// - Parameters:
    ///   - memoryCache: where results are stored and looked up first; `nil` to only coalesce. The
    ///     default cache has no cost, count or age limit.
    ///   - cost: each value's cost in the memory cache's unit (for images: bytes of pixels).
    ///   - loadStart: where a load started for a caller that waits for it runs until it first
    ///     suspends (``LoadStart``); `.queued` by default. Prefetches always start queued.
    ///   - recursiveLoad: produces the value for a key when it is neither cached nor already loading,
    ///     receiving this loader (to ask it for other keys without holding it) and the load's live
    ///     priority.
    public init(
        memoryCache: MemoryCache<Key, Value>? = MemoryCache(),
        cost: @escaping @Sendable (Value) -> Int = { _ in 1 },
        loadStart: LoadStart = .queued,
        recursiveLoad: @escaping RecursiveLoad
    ) {
        self.memoryCache = memoryCache
        self.cost = cost
        self.loadStart = loadStart
        self.load = recursiveLoad
    }

    /// Returns the value for `key`: from the memory cache at once, else by joining the load in
    /// flight for `key`, else by starting that load.
    ///
    /// - Parameters:
    ///   - key: the key whose value is wanted; callers asking for equal keys share one load.
    ///   - priority: this caller's priority; defaults to the calling task's.
    /// - Returns: the value, cached or loaded.
    /// - Throws: `CancellationError` when the calling task is cancelled (the shared load goes on
    ///   for its other waiters); ``LoadError`` when the load failed.
    ///
    /// Runs on the caller's executor (`nonsending`) up to the point where it waits, so a caller
    /// is registered as a waiter before it first suspends: work the caller does after starting
    /// a task that calls this (cancelling a prefetch of the same key, say) finds it waiting.
    @inlinable
    nonisolated(nonsending)
    public func value(for key: Key, priority: TaskPriority? = nil) async throws -> Value {
        // Inlined into the caller so the hit is a specialized cache lookup, nothing more.
        if let value = memoryCache?.value(forKey: key) { return value }
        return try await joinOrStartLoad(key, priority: LoadPriority(priority ?? Task.currentPriority))
    }

    /// Returns the value for `key` like ``value(for:priority:)-(_,TaskPriority?)``, with a
    /// priority the caller may change while it waits: the load's priority follows it.
    ///
    /// - Parameters:
    ///   - key: the key whose value is wanted; callers asking for equal keys share one load.
    ///   - priority: this caller's priority, which it may change (``LoadPriority/update(to:)``) while it
    ///     waits; the load runs at the highest of its waiters'.
    /// - Returns: the value, cached or loaded.
    /// - Throws: `CancellationError` when the calling task is cancelled (the shared load goes on
    ///   for its other waiters); ``LoadError`` when the load failed.
    @inlinable
    nonisolated(nonsending)
    public func value(for key: Key, priority: LoadPriority) async throws -> Value {
        if let value = memoryCache?.value(forKey: key) { return value }
        return try await joinOrStartLoad(key, priority: priority)
    }

    /// The miss path of ``value(for:priority:)``.
    @inlinable
    nonisolated(nonsending)
    func joinOrStartLoad(_ key: Key, priority: LoadPriority) async throws -> Value {
        let waiterID = nextID.add(1, ordering: .relaxed).newValue
        let startsInline = loadStart.startsInline(callerIsolation: #isolation)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                join(key, waiter: waiterID, priority: priority, startsInline: startsInline, continuation: continuation)
            }
        } onCancel: {
            leave(key, waiter: waiterID)
        }
    }

    /// Starts loading `key` into the memory cache in the background, unless it is cached or
    /// already loading, so that a later ``value(for:priority:)-(_,TaskPriority?)`` finds it ready or joins it.
    ///
    /// Nobody waits for the result; a failed prefetch leaves no trace. Repeating the call for a
    /// key that is already prefetching does nothing more.
    ///
    /// - Parameters:
    ///   - key: the key whose value to load ahead of its callers.
    ///   - priority: the prefetch's priority; the load runs at the highest of it and its waiters'. A
    ///     repeated call with a higher priority raises it.
    public func prefetch(_ key: Key, priority: TaskPriority = .low) {
        if memoryCache?.value(forKey: key) != nil { return }
        flights.withLock { flights in
            if case .flight(let flight, _) = flightLocked(for: key, priority: priority, startsTask: true, in: &flights) {
                flight.prefetchPriority = max(flight.prefetchPriority ?? priority, priority)
                LoadPriority.noteChange()
            }
        }
    }

    /// Withdraws the prefetch of `key`. Its load is cancelled unless callers are waiting for it,
    /// in which case it goes on for them.
    ///
    /// - Parameter key: the key given to ``prefetch(_:priority:)``; a key not prefetching is ignored.
    public func cancelPrefetch(_ key: Key) {
        let abandoned: Task<Void, Never>? = flights.withLock { flights in
            guard let flight = flights[key], flight.prefetchPriority != nil else { return nil }
            flight.prefetchPriority = nil
            guard flight.waiters.isEmpty else {
                LoadPriority.noteChange()
                return nil
            }
            flights[key] = nil
            return flight.task
        }
        abandoned?.cancel()
    }

    /// The value for `key` if the memory cache holds it, without loading.
    ///
    /// - Parameter key: the key whose value is wanted.
    /// - Returns: the cached value, or `nil` when the memory cache holds none or the loader has no
    ///   memory cache.
    public func cachedValue(for key: Key) -> Value? {
        memoryCache?.value(forKey: key)
    }

    /// The number of loads in flight now (prefetches included).
    public var loadsInFlight: Int {
        flights.withLock { $0.count }
    }

    /// Whether a load for `key` is in flight now.
    ///
    /// - Parameter key: the key to check.
    /// - Returns: `true` while a load for `key` runs, for callers or for a prefetch.
    public func isLoading(_ key: Key) -> Bool {
        flights.withLock { $0[key] != nil }
    }

    /// The number of callers waiting for `key` now; tests use it to arrange joins.
    func waiterCount(for key: Key) -> Int {
        flights.withLock { $0[key]?.waiters.count ?? 0 }
    }

    // MARK: - Flights
    //
    // Everything below is inlinable: specialized in the module that names `Key` and `Value` (the
    // pipeline's stages). Left generic, every load instantiated `[Key: Flight]`,
    // `CheckedContinuation<Value, _>`, `Result<Value, _>` and the key paths here at run time
    // (type metadata lookups and demangling). Specialized, a cold thumbnail load in
    // `LoupeBenchmarks pipeline-cold` spent about 170 µs less CPU (perf, cpu-clock samples:
    // libswiftCore's nearly halved, libjpeg's unchanged).

    /// One load in flight and who wants it. Only touched under the `flights` lock.
    @usableFromInline
    final class Flight {
        @usableFromInline let id: UInt64
        @usableFromInline var task: Task<Void, Never>?
        @usableFromInline var waiters: [UInt64: Waiter] = [:]
        /// Set while a prefetch wants the value, at the prefetch's priority.
        @usableFromInline var prefetchPriority: TaskPriority?
        /// The highest priority the task has been escalated to (tasks are never lowered).
        @usableFromInline var escalatedPriority: TaskPriority

        @inlinable
        init(id: UInt64, priority: TaskPriority) {
            self.id = id
            self.escalatedPriority = priority
        }

        /// The waiters' and the prefetch's priorities now; read under the lock, evaluated outside
        /// it (a waiter's priority may itself be a load's, behind another loader's lock).
        @inlinable
        var prioritySources: (waiters: [LoadPriority], prefetch: TaskPriority?) {
            (waiters.values.map { $0.priority }, prefetchPriority)
        }
    }

    @usableFromInline
    struct Waiter {
        @usableFromInline let continuation: CheckedContinuation<Value, any Error>
        @usableFromInline let priority: LoadPriority

        @inlinable
        init(continuation: CheckedContinuation<Value, any Error>, priority: LoadPriority) {
            self.continuation = continuation
            self.priority = priority
        }
    }

    @usableFromInline
    enum JoinOutcome {
        case waiting, cancelled, cached(Value)
        /// Waiting for a flight this caller created, whose task it starts.
        case starting(Flight)
    }

    @usableFromInline
    enum Lookup {
        /// The flight, and whether this lookup created it.
        case flight(Flight, created: Bool)
        case cached(Value)
    }

    @inlinable
    func join(
        _ key: Key,
        waiter: UInt64,
        priority: LoadPriority,
        startsInline: Bool,
        continuation: CheckedContinuation<Value, any Error>
    ) {
        // Read before taking the lock: it may be a load's priority, behind another lock.
        let current = priority.value
        let outcome: JoinOutcome = flights.withLock { flights in
            // The cancellation handler may already have run and found nothing to remove: the
            // flag is set before it runs, so checking it under the lock closes that window.
            if Task.isCancelled { return .cancelled }
            switch flightLocked(for: key, priority: current, startsTask: !startsInline, in: &flights) {
            case .cached(let value):
                return .cached(value)
            case .flight(let flight, let created):
                flight.waiters[waiter] = Waiter(continuation: continuation, priority: priority)
                return created && flight.task == nil ? .starting(flight) : .waiting
            }
        }
        switch outcome {
        case .waiting: break
        case .starting(let flight): startInline(flight, key: key, priority: current)
        case .cancelled: continuation.resume(throwing: CancellationError())
        case .cached(let value): continuation.resume(returning: value)
        }
    }

    /// Starts `flight`'s load on this thread, outside the lock (the load may ask this loader
    /// for other keys), then records its task — and cancels it at once if every waiter left
    /// while it ran up to its first suspension.
    @inlinable
    func startInline(_ flight: Flight, key: Key, priority: TaskPriority) {
        let id = flight.id
        let loadPriority = self.loadPriority(of: key, flight: id, fallback: priority)
        // Preferring WorkerHandoff: resumed by a worker at the end of its off-pool work, the load
        // goes on on that worker instead of waking a thread of the pool.
        let task = Task.immediateDetached(priority: priority, executorPreference: WorkerHandoff.shared) { [self] in
            await run(key, flight: id, priority: loadPriority)
        }
        let abandoned = flights.withLock { flights -> Bool in
            flight.task = task
            // A caller that joined before the task existed may have raised the priority.
            if flight.escalatedPriority > priority { task.escalatePriority(to: flight.escalatedPriority) }
            // Over (its result delivered) or abandoned: either way no longer this key's flight.
            return flights[key]?.id != id
        }
        if abandoned { task.cancel() }
    }

    /// The live priority of `flight`'s load: its waiters' and prefetch's now.
    @inlinable
    func loadPriority(of key: Key, flight id: UInt64, fallback priority: TaskPriority) -> LoadPriority {
        LoadPriority(derived: { [weak self] in
            self?.currentStanding(of: key, flight: id) ?? LoadPriority.Standing(priority: priority, arrival: nil)
        })
    }

    /// Returns the flight for `key`, creating one if needed (its task started here with
    /// `startsTask`, else by the caller once it has released the lock) and raising its priority
    /// to `priority` — or the cached value when a load finished between the caller's cache check
    /// and this lock, so that no second load starts for it.
    @inlinable
    func flightLocked(for key: Key, priority: TaskPriority, startsTask: Bool, in flights: inout [Key: Flight]) -> Lookup {
        if let flight = flights[key] {
            // The flight's priority (the highest of its waiters') may rise with this one.
            LoadPriority.noteChange()
            if priority > flight.escalatedPriority {
                flight.escalatedPriority = priority
                flight.task?.escalatePriority(to: priority)
            }
            return .flight(flight, created: false)
        }
        if let value = memoryCache?.value(forKey: key) { return .cached(value) }
        let id = nextID.add(1, ordering: .relaxed).newValue
        let flight = Flight(id: id, priority: priority)
        if startsTask {
            let loadPriority = loadPriority(of: key, flight: id, fallback: priority)
            // Detached: the load is shared, so it must not inherit the first caller's task-locals.
            // Preferring WorkerHandoff as in `startInline`.
            flight.task = Task.detached(executorPreference: WorkerHandoff.shared, priority: priority) { [self] in
                await run(key, flight: id, priority: loadPriority)
            }
        }
        flights[key] = flight
        return .flight(flight, created: true)
    }

    /// The highest priority among the flight's waiters and prefetch now, with the earliest
    /// arrival among its waiters (so shared work keeps its first requester's place in line), or
    /// `nil` once the flight is over (or has no one left).
    @inlinable
    func currentStanding(of key: Key, flight id: UInt64) -> LoadPriority.Standing? {
        let sources = flights.withLock { flights -> ([LoadPriority], TaskPriority?)? in
            guard let flight = flights[key], flight.id == id else { return nil }
            return flight.prioritySources
        }
        guard let (waiters, prefetch) = sources else { return nil }
        var highest = prefetch
        var earliest: UInt64?
        for waiter in waiters {
            let standing = waiter.standing
            highest = highest.map { max($0, standing.priority) } ?? standing.priority
            if let arrival = standing.arrival { earliest = earliest.map { min($0, arrival) } ?? arrival }
        }
        guard let highest else { return nil }
        return LoadPriority.Standing(priority: highest, arrival: earliest)
    }

    @inlinable
    func run(_ key: Key, flight id: UInt64, priority: LoadPriority) async {
        let result: Result<Value, any Error>
        do {
            result = .success(try await load(self, key, priority))
        } catch {
            result = .failure(LoadError(key: key, underlying: error))
        }
        // Computed outside the lock: `cost` is the caller's code.
        let valueCost = (try? result.get()).map(cost)
        let waiters: [CheckedContinuation<Value, any Error>] = flights.withLock { flights in
            // A flight that was abandoned (all waiters left) may have been replaced by a newer
            // one for the same key: it must neither store its result nor touch the newer one.
            guard let flight = flights[key], flight.id == id else { return [] }
            flights[key] = nil
            if case .success(let value) = result, let valueCost {
                // Stored before the flight disappears from view, under the same lock, so a
                // caller arriving now sees either the flight or the cached value, never neither.
                memoryCache?.setValue(value, forKey: key, cost: valueCost)
            }
            return flight.waiters.values.map { $0.continuation }
        }
        for waiter in waiters {
            waiter.resume(with: result)
        }
    }

    @inlinable
    func leave(_ key: Key, waiter: UInt64) {
        let (continuation, abandoned): (CheckedContinuation<Value, any Error>?, Task<Void, Never>?) =
            flights.withLock { flights in
                guard let flight = flights[key],
                      let removed = flight.waiters.removeValue(forKey: waiter)
                else { return (nil, nil) }
                guard flight.waiters.isEmpty, flight.prefetchPriority == nil else {
                    // The flight's priority may fall with this waiter gone.
                    LoadPriority.noteChange()
                    return (removed.continuation, nil)
                }
                flights[key] = nil
                return (removed.continuation, flight.task)
            }
        continuation?.resume(throwing: CancellationError())
        abandoned?.cancel()
    }
}

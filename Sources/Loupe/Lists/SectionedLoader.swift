/// Loads a list made of sections, each from its own source, and publishes the list as it fills
/// (the sectioned menu: a shop's main, soup and side dishes, each behind its own request).
///
/// Every source starts at once. The snapshots, in order: first every section with its
/// placeholders, then one snapshot per section as its data (or error) arrives — whichever
/// comes first, so a slow section never holds back a fast one — the last one marked
/// ``SectionedSnapshot/isComplete``; then the sequence ends.
///
/// Snapshots are built by one serial owner (one task, one snapshot at a time) and each carries
/// the change from the one before, so applying them in order keeps data and list view in
/// agreement. A failed source leaves its section ``SectionedSnapshot/State/failed(_:)``, with no
/// items, in a snapshot that reloads the section; the other sections carry on.
///
/// ```swift
/// let loader = SectionedLoader<Menu, Dish>([
///     .init(.main, placeholderCount: 4) { try await api.dishes(.main) },
///     .init(.soup, placeholderCount: 2) { try await api.dishes(.soup) },
///     .init(.side, placeholderCount: 6) { try await api.dishes(.side) },
/// ])
/// for await snapshot in loader.snapshots() {
///     dataSource.apply(snapshot)        // data and its change together, on one turn
/// }
/// ```
public struct SectionedLoader<SectionID: Hashable & Sendable, Item: Sendable>: Sendable {
    /// One section: its identifier, how many placeholders it shows while it waits, its source.
    public struct Section: Sendable {
        /// Identifies the section in snapshots.
        public let id: SectionID
        /// Placeholder items shown until the source answers (negative counts as 0).
        public let placeholderCount: Int
        let load: @Sendable () async throws -> [Item]

        /// A section `id` showing `placeholderCount` placeholders until `load` returns its items.
        ///
        /// - Parameters:
        ///   - id: identifies the section in snapshots.
        ///   - placeholderCount: placeholder items shown until the source answers; negative counts as 0.
        ///   - load: the section's source: returns its items, or throws to leave the section
        ///     ``SectionedSnapshot/State/failed(_:)``. Called once per iteration of the snapshots, and
        ///     cancelled when that iteration ends early.
        public init(_ id: SectionID, placeholderCount: Int, load: @escaping @Sendable () async throws -> [Item]) {
            self.id = id
            self.placeholderCount = max(0, placeholderCount)
            self.load = load
        }
    }

    /// The snapshots of one load: see ``SectionedLoader``. Each iteration loads anew; leaving it
    /// early, or cancelling the iterating task, cancels the sources still loading (the iteration
    /// then ends).
    public struct Snapshots: AsyncSequence, Sendable {
        public typealias Element = SectionedSnapshot<SectionID, Item>
        public typealias Failure = Never

        let sections: [Section]

        public func makeAsyncIterator() -> AsyncStream<Element>.Iterator {
            SectionedLoader.load(sections).makeAsyncIterator()
        }
    }

    /// The sections, in list order.
    public let sections: [Section]

    /// A loader for `sections`, shown in this order. Nothing loads until its snapshots are
    /// iterated.
    ///
    /// - Parameter sections: the sections in list order, each with its placeholder count and source.
    public init(_ sections: [Section]) {
        self.sections = sections
    }

    /// The snapshots of a load of every section (see ``SectionedLoader``).
    public func snapshots() -> Snapshots {
        Snapshots(sections: sections)
    }

    /// Starts one load: a task that owns the snapshot, runs the sources in a task group and
    /// publishes a snapshot per settled section. The stream holds at most a snapshot per
    /// section plus one, so its buffer is bounded without dropping any.
    private static func load(_ sections: [Section]) -> AsyncStream<SectionedSnapshot<SectionID, Item>> {
        let (stream, continuation) = AsyncStream.makeStream(of: SectionedSnapshot<SectionID, Item>.self, bufferingPolicy: .unbounded)
        let task = Task {
            var snapshot = SectionedSnapshot<SectionID, Item>(
                version: 0,
                sections: sections.map { .init(id: $0.id, state: .placeholders(count: $0.placeholderCount)) },
                change: ListChange(insertedSections: Array(sections.indices)),
                isComplete: sections.isEmpty)
            continuation.yield(snapshot)
            await withTaskGroup(of: (Int, Result<[Item], any Error>).self) { group in
                for (index, section) in sections.enumerated() {
                    group.addTask {
                        // Bound before the tuple is built: see `Result(awaiting:)`.
                        let result = await Result(awaiting: section.load)
                        return (index, result)
                    }
                }
                var settled = 0
                // The only place snapshots are made: one at a time, in the order sections settle.
                for await (index, result) in group {
                    settled += 1
                    snapshot = snapshot.settling(section: index, with: result, isComplete: settled == sections.count)
                    continuation.yield(snapshot)
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}

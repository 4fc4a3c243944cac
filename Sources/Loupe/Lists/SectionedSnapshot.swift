/// A sectioned list's content at one moment, with the change that led to it from the
/// snapshot before: what a ``SectionedLoader`` publishes.
///
/// Data and change travel together, so a consumer that applies each snapshot's ``change`` while
/// it switches to that snapshot's ``sections`` always finds them in agreement (the sectioned menu's
/// "invalid number of items in section" came from applying them on different turns).
public struct SectionedSnapshot<SectionID: Hashable & Sendable, Item: Sendable>: Sendable {
    /// What a section shows.
    public enum State: Sendable {
        /// Waiting for its data: this many placeholder items, so the layout does not jump when
        /// the data arrives.
        case placeholders(count: Int)
        /// Its data.
        case loaded([Item])
        /// Its source failed with this error: no items (the app shows the error its own way,
        /// for instance in the section's footer).
        case failed(any Error)
    }

    /// One section of the list.
    public struct Section: Sendable {
        /// The section's identifier, as given to the loader.
        public let id: SectionID
        /// What it shows.
        public let state: State

        /// Items the list view shows in this section: placeholders count as items.
        public var itemCount: Int {
            switch state {
            case .placeholders(let count): count
            case .loaded(let items): items.count
            case .failed: 0
            }
        }

        /// The loaded items; empty while waiting or after a failure.
        public var items: [Item] {
            if case .loaded(let items) = state { items } else { [] }
        }

        /// Whether the section's source has answered (with data or an error).
        public var isSettled: Bool {
            if case .placeholders = state { false } else { true }
        }
    }

    /// 0 for the first snapshot, one more for each after it.
    public let version: Int
    /// The sections, in the order the loader was given them.
    public let sections: [Section]
    /// What changed from the previous snapshot (from an empty list for the first): apply it to
    /// the list view together with switching to ``sections``.
    public let change: ListChange
    /// Whether every section has settled: this is the last snapshot.
    public let isComplete: Bool

    /// Items per section, as the list view's data source reports them.
    public var itemCounts: [Int] { sections.map(\.itemCount) }

    /// The first section with identifier `id`.
    public subscript(id: SectionID) -> Section? {
        sections.first { $0.id == id }
    }

    init(version: Int, sections: [Section], change: ListChange, isComplete: Bool) {
        self.version = version
        self.sections = sections
        self.change = change
        self.isComplete = isComplete
    }

    /// The next snapshot: section `index` (showing placeholders) settled with `result`.
    ///
    /// Data replaces the placeholders item by item — the first ones reloaded in place, the
    /// rest inserted (more data than placeholders) or deleted (fewer) at the end — so cells do
    /// not jump. A failure reloads the section, which then has no items.
    func settling(section index: Int, with result: Result<[Item], any Error>, isComplete: Bool) -> SectionedSnapshot {
        var sections = self.sections
        let placeholders = sections[index].itemCount
        var change = ListChange()
        switch result {
        case .success(let items):
            sections[index] = Section(id: sections[index].id, state: .loaded(items))
            let path = { ListIndexPath(item: $0, section: index) }
            change.reloadedItems = (0..<min(placeholders, items.count)).map(path)
            change.insertedItems = (min(placeholders, items.count)..<items.count).map(path)
            change.deletedItems = (items.count..<max(placeholders, items.count)).map(path)
        case .failure(let error):
            sections[index] = Section(id: sections[index].id, state: .failed(error))
            change.reloadedSections = [index]
        }
        return SectionedSnapshot(version: version + 1, sections: sections, change: change, isComplete: isComplete)
    }
}

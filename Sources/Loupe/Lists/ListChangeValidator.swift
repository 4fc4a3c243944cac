/// A model of a list view's item counts that applies ``ListChange``s the way UIKit's batch
/// updates do, and rejects any change that UIKit would reject — above all "invalid number of
/// items in section": items after ≠ items before + inserted − deleted.
///
/// For apps' tests: feed it every change a data source publishes, with the item counts the
/// data source reports after that change, and any mismatch between data and change shows as a
/// typed ``ListChangeViolation`` instead of a crash on a device.
///
/// Given ``SectionedSnapshot``s it also checks what counts alone cannot show: the sections stay
/// the same, each snapshot settles exactly one section, a settled section never changes again,
/// the last snapshot is the one with every section settled — and, given what each source
/// returned, that a section shows its own source's items. Data shown in the wrong section with
/// counts that happen to add up is caught that way.
///
/// ```swift
/// var view = ListChangeValidator()
/// for await snapshot in loader.snapshots() {
///     try view.apply(snapshot)          // the change must turn the previous counts into these
/// }
/// ```
public struct ListChangeValidator: Sendable {
    /// What the modelled list view shows: items per section.
    public private(set) var itemCounts: [Int]
    /// The version of the last snapshot applied, if any.
    public private(set) var version: Int?
    /// The last snapshot's section identifiers and which of its sections had settled.
    private var sectionIDs: [any Hashable & Sendable] = []
    private var settled: [Bool] = []

    /// A list view showing `itemCounts` (none: an empty list, before its first update).
    public init(itemCounts: [Int] = []) {
        self.itemCounts = itemCounts
    }

    /// Applies `snapshot.change` against `snapshot`'s item counts, after checking that the
    /// snapshot is the one after the last applied (versions one apart) and that it settles the
    /// way a sectioned load does (see ``ListChangeValidator``).
    public mutating func apply<SectionID, Item>(_ snapshot: SectionedSnapshot<SectionID, Item>) throws(ListChangeViolation) {
        try apply(snapshot) { _ throws(ListChangeViolation) in }
    }

    /// Applies `snapshot` as ``apply(_:)`` does, and checks that each section it settles with data
    /// shows exactly `sourceItems[id]`, the items that section's own source returned (a section
    /// whose identifier is missing from `sourceItems` is not checked; one that failed while its
    /// source has items is a violation).
    public mutating func apply<SectionID, Item: Equatable>(
        _ snapshot: SectionedSnapshot<SectionID, Item>, sourceItems: [SectionID: [Item]]
    ) throws(ListChangeViolation) {
        try apply(snapshot) { newlySettled throws(ListChangeViolation) in
            for index in newlySettled {
                let section = snapshot.sections[index]
                guard let expected = sourceItems[section.id] else { continue }
                guard case .loaded(let items) = section.state, items == expected else {
                    throw .itemsFromAnotherSource(section: index, version: snapshot.version)
                }
            }
        }
    }

    private mutating func apply<SectionID, Item>(
        _ snapshot: SectionedSnapshot<SectionID, Item>, checkingSettled check: ([Int]) throws(ListChangeViolation) -> Void
    ) throws(ListChangeViolation) {
        if let version, snapshot.version != version + 1 {
            throw .versionOutOfOrder(expected: version + 1, actual: snapshot.version)
        }
        let newlySettled = try settledSections(of: snapshot)
        try check(newlySettled)
        try apply(snapshot.change, resultingItemCounts: snapshot.itemCounts)
        version = snapshot.version
        sectionIDs = snapshot.sections.map(\.id)
        settled = snapshot.sections.map(\.isSettled)
    }

    /// The sections `snapshot` settles, after checking it against the snapshot before.
    private func settledSections<SectionID, Item>(of snapshot: SectionedSnapshot<SectionID, Item>) throws(ListChangeViolation) -> [Int] {
        let sections = snapshot.sections
        if sections.allSatisfy(\.isSettled) != snapshot.isComplete {
            throw .completionMismatch(version: snapshot.version, isComplete: snapshot.isComplete)
        }
        guard version != nil else { return sections.indices.filter { sections[$0].isSettled } }
        guard sections.count == sectionIDs.count,
              zip(sections, sectionIDs).allSatisfy({ ($1 as? SectionID) == $0.id })
        else { throw .sectionsReplaced(version: snapshot.version) }
        let change = snapshot.change
        var newlySettled: [Int] = []
        for index in sections.indices {
            if settled[index] {
                let touched = change.reloadedSections.contains(index)
                    || (change.deletedItems + change.insertedItems + change.reloadedItems).contains { $0.section == index }
                // The model's counts can have been changed apart from snapshots (`apply(_:resultingItemCounts:)`).
                let shown = itemCounts.indices.contains(index) ? itemCounts[index] : nil
                guard sections[index].isSettled, !touched, sections[index].itemCount == shown else {
                    throw .settledAgain(section: index, version: snapshot.version)
                }
            } else if sections[index].isSettled {
                newlySettled.append(index)
            }
        }
        guard newlySettled.count == 1 else {
            throw .settledSectionCount(version: snapshot.version, settled: newlySettled.count)
        }
        return newlySettled
    }

    /// Applies `change` to the modelled list view, whose data source then reports
    /// `resultingItemCounts`; leaves the model unchanged and throws if the two disagree.
    public mutating func apply(_ change: ListChange, resultingItemCounts after: [Int]) throws(ListChangeViolation) {
        let before = itemCounts
        // Sections: indices in range, no duplicates, counts adding up.
        try checkSections(change.deletedSections, .deleteSection, count: before.count)
        try checkSections(change.reloadedSections, .reloadSection, count: before.count)
        try checkSections(change.insertedSections, .insertSection, count: after.count)
        let deletedSections = Set(change.deletedSections)
        let reloadedSections = Set(change.reloadedSections)
        if let both = change.reloadedSections.first(where: deletedSections.contains) {
            throw .conflict(.reloadSection, ListIndexPath(item: 0, section: both))
        }
        guard after.count == before.count - deletedSections.count + change.insertedSections.count else {
            throw .sectionCountMismatch(
                before: before.count, inserted: change.insertedSections.count, deleted: deletedSections.count, after: after.count)
        }

        // The sections that stay, before and after: the same sections in the same order.
        let insertedSections = Set(change.insertedSections)
        let kept = zip(
            before.indices.filter { !deletedSections.contains($0) },
            after.indices.filter { !insertedSections.contains($0) })
        let reloadedAfter = Set(kept.filter { reloadedSections.contains($0.0) }.map(\.1))

        // Items: in sections that stay and are not reloaded, in range, no duplicates.
        try checkItems(change.deletedItems, .deleteItem, counts: before) { deletedSections.contains($0) || reloadedSections.contains($0) }
        try checkItems(change.reloadedItems, .reloadItem, counts: before) { deletedSections.contains($0) || reloadedSections.contains($0) }
        try checkItems(change.insertedItems, .insertItem, counts: after) { insertedSections.contains($0) || reloadedAfter.contains($0) }
        let deletedItems = Set(change.deletedItems)
        if let both = change.reloadedItems.first(where: deletedItems.contains) {
            throw .conflict(.reloadItem, both)
        }

        // Each section that stays: items after = items before + inserted − deleted.
        for (old, new) in kept where !reloadedSections.contains(old) {
            let inserted = change.insertedItems.count { $0.section == new }
            let deleted = change.deletedItems.count { $0.section == old }
            guard after[new] == before[old] + inserted - deleted else {
                throw .itemCountMismatch(section: new, before: before[old], inserted: inserted, deleted: deleted, after: after[new])
            }
        }
        itemCounts = after
    }

    private func checkSections(_ sections: [Int], _ operation: ListChangeViolation.Operation, count: Int) throws(ListChangeViolation) {
        var seen = Set<Int>()
        for section in sections {
            guard (0..<count).contains(section) else { throw .sectionOutOfRange(operation, section: section, sectionCount: count) }
            guard seen.insert(section).inserted else { throw .duplicate(operation, ListIndexPath(item: 0, section: section)) }
        }
    }

    private func checkItems(
        _ paths: [ListIndexPath], _ operation: ListChangeViolation.Operation, counts: [Int], excluded: (Int) -> Bool
    ) throws(ListChangeViolation) {
        var seen = Set<ListIndexPath>()
        for path in paths {
            guard counts.indices.contains(path.section) else {
                throw .sectionOutOfRange(operation, section: path.section, sectionCount: counts.count)
            }
            guard !excluded(path.section) else { throw .conflict(operation, path) }
            guard (0..<counts[path.section]).contains(path.item) else {
                throw .itemOutOfRange(operation, path, itemCount: counts[path.section])
            }
            guard seen.insert(path).inserted else { throw .duplicate(operation, path) }
        }
    }
}

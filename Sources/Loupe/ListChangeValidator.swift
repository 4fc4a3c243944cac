/// A model of a list view's item counts that applies ``ListChange``s the way UIKit's batch
/// updates do, and rejects any change that UIKit would reject — above all seed 003's
/// "invalid number of items in section": items after ≠ items before + inserted − deleted.
///
/// For apps' tests: feed it every change a data source publishes, with the item counts the
/// data source reports after that change, and any mismatch between data and change shows as a
/// typed ``ListChangeViolation`` instead of a crash on a device.
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

    /// A list view showing `itemCounts` (none: an empty list, before its first update).
    public init(itemCounts: [Int] = []) {
        self.itemCounts = itemCounts
    }

    /// Applies `snapshot.change` against `snapshot`'s item counts, after checking that the
    /// snapshot is the one after the last applied (versions one apart).
    public mutating func apply<SectionID, Item>(_ snapshot: SectionedSnapshot<SectionID, Item>) throws(ListChangeViolation) {
        if let version, snapshot.version != version + 1 {
            throw .versionOutOfOrder(expected: version + 1, actual: snapshot.version)
        }
        try apply(snapshot.change, resultingItemCounts: snapshot.itemCounts)
        version = snapshot.version
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

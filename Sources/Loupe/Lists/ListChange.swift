/// A position in a sectioned list: the item `item` of section `section` (UIKit's `IndexPath`
/// for collection and table views, without depending on UIKit).
public struct ListIndexPath: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The section's index.
    public var section: Int
    /// The item's index within its section.
    public var item: Int

    /// The item `item` of section `section`.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    public static func < (lhs: ListIndexPath, rhs: ListIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    public var description: String { "[\(section), \(item)]" }
}

/// What changed in a sectioned list from one snapshot to the next, in the terms a list view's
/// batch update takes (`performBatchUpdates`): sections and items deleted, inserted, reloaded.
///
/// As in UIKit, deletions and reloads are given by their indices *before* the change,
/// insertions by their indices *after* it; a reloaded section may change its item count, and
/// no item change may name a deleted or reloaded section. ``ListChangeValidator`` checks a
/// change against those rules.
public struct ListChange: Sendable, Hashable {
    /// Sections removed (indices before the change).
    public var deletedSections: [Int]
    /// Sections added (indices after the change).
    public var insertedSections: [Int]
    /// Sections shown anew, whatever their item count now (indices before the change).
    public var reloadedSections: [Int]
    /// Items removed (index paths before the change).
    public var deletedItems: [ListIndexPath]
    /// Items added (index paths after the change).
    public var insertedItems: [ListIndexPath]
    /// Items shown anew in place (index paths before the change).
    public var reloadedItems: [ListIndexPath]

    /// A change made of the given parts; nothing by default.
    public init(
        deletedSections: [Int] = [], insertedSections: [Int] = [], reloadedSections: [Int] = [],
        deletedItems: [ListIndexPath] = [], insertedItems: [ListIndexPath] = [], reloadedItems: [ListIndexPath] = []
    ) {
        self.deletedSections = deletedSections
        self.insertedSections = insertedSections
        self.reloadedSections = reloadedSections
        self.deletedItems = deletedItems
        self.insertedItems = insertedItems
        self.reloadedItems = reloadedItems
    }

    /// Whether nothing changed.
    public var isEmpty: Bool { self == ListChange() }
}

/// Why a list view would reject a change (UIKit raises an exception for each of these).
public enum ListChangeViolation: Error, Hashable, CustomStringConvertible {
    /// The part of a change at fault.
    public enum Operation: String, Sendable, Hashable {
        case deleteSection = "delete section"
        case insertSection = "insert section"
        case reloadSection = "reload section"
        case deleteItem = "delete item"
        case insertItem = "insert item"
        case reloadItem = "reload item"
    }

    /// Sections after ≠ sections before + inserted − deleted.
    case sectionCountMismatch(before: Int, inserted: Int, deleted: Int, after: Int)
    /// Items in a section after ≠ items before + inserted − deleted (the sectioned menu's crash).
    case itemCountMismatch(section: Int, before: Int, inserted: Int, deleted: Int, after: Int)
    /// A section index outside the list (before the change for deletions and reloads, after it
    /// for insertions).
    case sectionOutOfRange(Operation, section: Int, sectionCount: Int)
    /// An item index outside its section.
    case itemOutOfRange(Operation, ListIndexPath, itemCount: Int)
    /// The same section or item named twice by one operation.
    case duplicate(Operation, ListIndexPath)
    /// An item change in a section that is deleted, reloaded or inserted by the same change, or
    /// one item (or section) both deleted and reloaded.
    case conflict(Operation, ListIndexPath)
    /// A snapshot applied out of turn: not the one after the last applied.
    case versionOutOfOrder(expected: Int, actual: Int)
    /// A snapshot whose sections are not those of the snapshot before, in the same order (a
    /// sectioned load never adds, removes or reorders sections).
    case sectionsReplaced(version: Int)
    /// A section that had already settled changed again: its source answers once, so new data
    /// there came from another section's source.
    case settledAgain(section: Int, version: Int)
    /// A snapshot after the first that settles no section, or more than one (each settles exactly
    /// the section whose source just answered).
    case settledSectionCount(version: Int, settled: Int)
    /// ``SectionedSnapshot/isComplete`` disagrees with the sections: complete with a section still
    /// waiting, or not complete with every section settled.
    case completionMismatch(version: Int, isComplete: Bool)
    /// A section settled with items other than those its own source returned.
    case itemsFromAnotherSource(section: Int, version: Int)

    public var description: String {
        switch self {
        case let .sectionCountMismatch(before, inserted, deleted, after):
            "invalid number of sections: \(after) after the update, \(before) before, \(inserted) inserted, \(deleted) deleted"
        case let .itemCountMismatch(section, before, inserted, deleted, after):
            "invalid number of items in section \(section): \(after) after the update, \(before) before, "
                + "\(inserted) inserted, \(deleted) deleted"
        case let .sectionOutOfRange(operation, section, count):
            "\(operation.rawValue) \(section): out of range (\(count) sections)"
        case let .itemOutOfRange(operation, path, count):
            "\(operation.rawValue) \(path): out of range (\(count) items in section \(path.section))"
        case let .duplicate(operation, path):
            "\(operation.rawValue) \(path): named twice"
        case let .conflict(operation, path):
            "\(operation.rawValue) \(path): conflicts with a section or item change of the same update"
        case let .versionOutOfOrder(expected, actual):
            "snapshot \(actual) applied where \(expected) was due"
        case let .sectionsReplaced(version):
            "snapshot \(version): its sections are not those of the snapshot before"
        case let .settledAgain(section, version):
            "snapshot \(version): section \(section) changed after it had settled"
        case let .settledSectionCount(version, settled):
            "snapshot \(version) settles \(settled) sections, not 1"
        case let .completionMismatch(version, isComplete):
            "snapshot \(version) is marked \(isComplete ? "complete with a section still waiting" : "incomplete with every section settled")"
        case let .itemsFromAnotherSource(section, version):
            "snapshot \(version): section \(section) shows items its own source did not return"
        }
    }
}

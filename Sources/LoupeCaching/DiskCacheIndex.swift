import Foundation

/// The in-memory index of a disk cache: key → entry metadata, in least-recently-used order,
/// with the running payload total. Every lookup goes through it, so no operation ever lists
/// the directory; eviction pops from the LRU end in O(1).
///
/// Not thread-safe by itself: `DiskCache` keeps it inside its mutex.
struct DiskCacheIndex {
    /// What the cache knows about one stored entry. Everything needed to serve a read and to
    /// check the file is here, so a read costs one file read and no parsing.
    struct Record {
        var key: String
        /// Unique per write: the entry file is named after it, so a rewrite never replaces a
        /// file that a concurrent reader may have open.
        var generation: UInt64
        var payloadSize: Int
        /// Payload + trailer + footer: what a healthy file's size must be.
        var fileSize: Int
        var checksum: UInt64
        var storedAt: Date
        var expiresAt: Date?
        var lastAccessedAt: Date
        var validators: DiskCacheValidators
        var userInfo: Data?
        /// The file's identity when its checksum last passed in this session (memory only).
        /// While the file still shows it, reads skip the hash; see `DiskCacheEntryFile.read`.
        var verifiedStamp: DiskCacheEntryFile.Stamp?
    }

    private struct Slot {
        var record: Record
        var older: Int32
        var newer: Int32
    }

    private static let none: Int32 = -1

    private var slots: [Slot] = []
    private var freeSlots: [Int32] = []
    private var positions: [String: Int32] = [:]
    private var oldest: Int32 = none
    private var newest: Int32 = none

    /// Sum of the payload sizes of all records.
    private(set) var totalSize = 0

    var count: Int { positions.count }

    init(minimumCapacity: Int = 0) {
        positions.reserveCapacity(minimumCapacity)
        slots.reserveCapacity(minimumCapacity)
    }

    func record(forKey key: String) -> Record? {
        positions[key].map { slots[Int($0)].record }
    }

    /// Marks the entry most recently used and stamps its access time, returning it (one hash
    /// of the key for a cache hit). With `unlessExpired`, an entry expired at `date` is left
    /// alone and `nil` returned.
    @discardableResult
    mutating func touch(key: String, at date: Date, unlessExpired: Bool = false) -> Record? {
        guard let position = positions[key] else { return nil }
        if unlessExpired, let expiresAt = slots[Int(position)].record.expiresAt, expiresAt <= date { return nil }
        slots[Int(position)].record.lastAccessedAt = date
        moveToNewest(position)
        return slots[Int(position)].record
    }

    /// Changes a record in place, keeping its LRU position.
    mutating func update(key: String, _ change: (inout Record) -> Void) {
        guard let position = positions[key] else { return }
        let oldSize = slots[Int(position)].record.payloadSize
        change(&slots[Int(position)].record)
        totalSize += slots[Int(position)].record.payloadSize - oldSize
    }

    /// Inserts `record` as most recently used, returning the record it replaces.
    /// One hash of the key (`updateValue`): replaying a journal is mostly inserts, and hashing
    /// keys is most of what opening a large cache costs.
    @discardableResult
    mutating func insert(_ record: Record) -> Record? {
        let slot = Slot(record: record, older: newest, newer: Self.none)
        let position: Int32
        if let free = freeSlots.popLast() {
            position = free
            slots[Int(position)] = slot
        } else {
            position = Int32(slots.count)
            slots.append(slot)
        }
        if newest != Self.none { slots[Int(newest)].newer = position }
        newest = position
        if oldest == Self.none { oldest = position }
        totalSize += record.payloadSize
        guard let replaced = positions.updateValue(position, forKey: record.key) else { return nil }
        return release(replaced)
    }

    @discardableResult
    mutating func remove(key: String) -> Record? {
        guard let position = positions.removeValue(forKey: key) else { return nil }
        return release(position)
    }

    /// Unlinks and frees a slot no longer in `positions`, returning its record.
    private mutating func release(_ position: Int32) -> Record {
        unlink(position)
        let record = slots[Int(position)].record
        // Drop the strings and blobs now rather than when the slot is reused.
        slots[Int(position)].record.key = ""
        slots[Int(position)].record.userInfo = nil
        slots[Int(position)].record.validators = DiskCacheValidators()
        freeSlots.append(position)
        totalSize -= record.payloadSize
        return record
    }

    /// The least recently used record, if any.
    var leastRecentlyUsed: Record? {
        oldest == Self.none ? nil : slots[Int(oldest)].record
    }

    /// The generations of all records (read straight from the slots: no record copies).
    var generations: Set<UInt64> {
        var result = Set<UInt64>(minimumCapacity: count)
        var position = oldest
        while position != Self.none {
            result.insert(slots[Int(position)].record.generation)
            position = slots[Int(position)].newer
        }
        return result
    }

    /// The keys of the records whose generation is in `generations`.
    func keys(withGenerations generations: Set<UInt64>) -> [String] {
        guard !generations.isEmpty else { return [] }
        var result: [String] = []
        var position = oldest
        while position != Self.none {
            if generations.contains(slots[Int(position)].record.generation) { result.append(slots[Int(position)].record.key) }
            position = slots[Int(position)].newer
        }
        return result
    }

    /// All records from least to most recently used (the order a journal replays them in).
    var recordsOldestFirst: [Record] {
        var result: [Record] = []
        result.reserveCapacity(count)
        var position = oldest
        while position != Self.none {
            result.append(slots[Int(position)].record)
            position = slots[Int(position)].newer
        }
        return result
    }

    private mutating func moveToNewest(_ position: Int32) {
        guard position != newest else { return }
        unlink(position)
        slots[Int(position)].older = newest
        slots[Int(position)].newer = Self.none
        if newest != Self.none { slots[Int(newest)].newer = position }
        newest = position
        if oldest == Self.none { oldest = position }
    }

    private mutating func unlink(_ position: Int32) {
        let older = slots[Int(position)].older
        let newer = slots[Int(position)].newer
        if older != Self.none { slots[Int(older)].newer = newer } else { oldest = newer }
        if newer != Self.none { slots[Int(newer)].older = older } else { newest = older }
        slots[Int(position)].older = Self.none
        slots[Int(position)].newer = Self.none
    }
}

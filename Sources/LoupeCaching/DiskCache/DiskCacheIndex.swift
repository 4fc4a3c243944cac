import Foundation

/// The in-memory index of a disk cache: key → entry metadata, in least-recently-used order,
/// with the running payload total. Every lookup goes through it, so no operation ever lists
/// the directory; eviction pops from the LRU end in O(1).
///
/// It also keeps, per segment, the bytes its live entries span, so the cache knows each
/// segment's dead bytes (its length minus these) without reading anything.
///
/// Not thread-safe by itself: `DiskCache` keeps it inside its mutex.
struct DiskCacheIndex {
    /// What the cache knows about one stored entry. Everything needed to serve a read and to
    /// check the entry is here, so a read costs one `pread` and no parsing.
    struct Record {
        var key: String
        /// The segment file holding the entry (its name is this number in hex).
        var segment: UInt64
        /// Where the entry lies in its segment and what it must hash to. Segments are
        /// append-only, so (segment, offset) is unique per write: a rewrite never changes bytes
        /// a concurrent reader may be reading.
        var location: DiskCacheSegment.Location
        var storedAt: Date
        var expiresAt: Date?
        var lastAccessedAt: Date
        var validators: DiskCacheValidators
        var userInfo: Data?
        /// The segment file's identity when this entry's checksum last passed in this session
        /// (memory only). While the segment still shows it, reads skip the hash.
        var verifiedStamp: DiskCacheEntryFile.Stamp?

        var payloadSize: Int { location.payloadSize }

        /// Whether `other` is this very write (same key, same bytes on disk).
        func isSameWrite(as other: Record) -> Bool {
            segment == other.segment && location.offset == other.location.offset
        }
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
    /// Per segment, the sum of the entry lengths of its records (absent: none).
    private(set) var liveBytes: [UInt64: Int] = [:]
    /// The sum of `liveBytes`: what the segments would hold without dead bytes.
    private(set) var totalLiveBytes = 0

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
        addLive(record.location.length, to: record.segment)
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
        subtractLive(record.location.length, from: record.segment)
        return record
    }

    /// Points `key`'s record at a copy of its entry (compaction), keeping its LRU position.
    mutating func move(key: String, to segment: UInt64, location: DiskCacheSegment.Location) {
        guard let position = positions[key] else { return }
        let old = slots[Int(position)].record
        subtractLive(old.location.length, from: old.segment)
        addLive(location.length, to: segment)
        slots[Int(position)].record.segment = segment
        slots[Int(position)].record.location = location
        slots[Int(position)].record.verifiedStamp = nil
    }

    private mutating func addLive(_ length: Int, to segment: UInt64) {
        liveBytes[segment, default: 0] += length
        totalLiveBytes += length
    }

    private mutating func subtractLive(_ length: Int, from segment: UInt64) {
        let remaining = (liveBytes[segment] ?? 0) - length
        liveBytes[segment] = remaining > 0 ? remaining : nil
        totalLiveBytes -= length
    }

    /// Removes every record `shouldRemove` picks, returning them (one pass over the slots).
    mutating func removeAll(where shouldRemove: (Record) -> Bool) -> [Record] {
        var picked: [String] = []
        var position = oldest
        while position != Self.none {
            if shouldRemove(slots[Int(position)].record) { picked.append(slots[Int(position)].record.key) }
            position = slots[Int(position)].newer
        }
        return picked.compactMap { remove(key: $0) }
    }

    /// The records stored in `segment`, in LRU order (what compaction copies out of it).
    func records(inSegment segment: UInt64) -> [Record] {
        var result: [Record] = []
        var position = oldest
        while position != Self.none {
            if slots[Int(position)].record.segment == segment { result.append(slots[Int(position)].record) }
            position = slots[Int(position)].newer
        }
        return result
    }

    /// The least recently used record, if any.
    var leastRecentlyUsed: Record? {
        oldest == Self.none ? nil : slots[Int(oldest)].record
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

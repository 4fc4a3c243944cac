import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Opening a disk cache: replay the journal, and repair whatever a crash or a lost journal left.
extension DiskCache {
    /// What opening the cache found and repaired (for logs and diagnostics).
    public struct Recovery: Sendable, Equatable {
        /// The previous owner closed the cache; nothing had to be checked.
        public var previousSessionEndedCleanly = true
        /// The journal was missing or damaged, so the index was rebuilt from the segments
        /// (last-access order and revalidated expiry dates from the lost journal are gone).
        public var indexRebuiltFromFiles = false
        /// Index entries dropped because their segment was missing or too short.
        public var droppedEntries = 0
        /// Files removed: segments without live entries, and the previous layout's entry files.
        public var removedFiles = 0
        /// Entries evicted on open because they exceeded the (possibly lowered) size limit.
        public var evictedEntries = 0
    }

    struct Loaded {
        var index: DiskCacheIndex
        var journal: DiskCacheJournal
        var segments: [UInt64: DiskCacheSegment]
        /// The segment to append to (the newest one left), if any.
        var current: UInt64?
        var nextSegment: UInt64
        var recovery: Recovery
    }

    /// Replays the journal and repairs the directory as needed:
    /// - the previous layout's entry files (`entries/`) are deleted;
    /// - clean shutdown: the journal is trusted as is (the segments are opened, not read);
    /// - crash (journal intact up to a possibly cut-off last record): records that point into a
    ///   missing segment or past a segment's end are dropped, and torn tails are cut off;
    /// - journal missing or damaged: the index is rebuilt from the segments' own framing.
    /// Then entries over the size limit are evicted, the journal is appended to (or rewritten,
    /// when it was unusable or mostly superseded records), and segments without a live entry
    /// are deleted.
    static func load(directory path: String, configuration: Configuration, now: Date) throws(DiskCacheError) -> Loaded {
        var recovery = Recovery()
        let journalPath = path + "/journal"
        let segmentsPath = path + "/segments"
        recovery.removedFiles += discardEntryFiles(path + "/entries")
        var segments: [UInt64: DiskCacheSegment] = [:]
        var nextSegment: UInt64 = 1
        for (number, isTemporary) in try listFiles(segmentsPath) where !isTemporary {
            let segmentPath = segmentsPath + "/" + fileName(number)
            do throws(DiskCacheFileSystem.Failure) {
                segments[number] = try DiskCacheSegment(path: segmentPath)
            } catch {
                throw .fromErrno(error.errno, operation: "open", path: segmentPath)
            }
            nextSegment = max(nextSegment, number &+ 1)
        }

        let replayed: (DiskCacheJournal.Replay, validLength: Int)?
        do throws(DiskCacheFileSystem.Failure) {
            replayed = try DiskCacheJournal.replay(path: journalPath)
        } catch {
            throw .fromErrno(error.errno, operation: "read", path: journalPath)
        }
        var index: DiskCacheIndex
        var appendAt: (length: Int, recordCount: Int)?
        // Keys dropped from the replayed index, to be journaled as removals when appending.
        var removedKeys: [String] = []
        if let (replay, validLength) = replayed, !replay.damaged {
            index = replay.index
            appendAt = (validLength, replay.recordCount)
            if !replay.endedCleanly {
                recovery.previousSessionEndedCleanly = false
                let dropped = index.removeAll { record in
                    guard let segment = segments[record.segment] else { return true }
                    return record.location.offset + record.location.length > segment.length
                }
                recovery.droppedEntries += dropped.count
                removedKeys = dropped.map(\.key)
                cutTornTails(segments, after: index)
            }
        } else {
            index = rebuild(from: segments, now: now)
            // A brand-new cache has no journal and no segments: nothing was recovered.
            if replayed != nil || !segments.isEmpty || recovery.removedFiles > 0 {
                recovery.previousSessionEndedCleanly = false
                recovery.indexRebuiltFromFiles = true
            }
        }

        var evicted: [DiskCacheIndex.Record] = []
        if index.totalSize > configuration.sizeLimit {
            while index.totalSize > configuration.lowWaterMark, let oldest = index.leastRecentlyUsed {
                index.remove(key: oldest.key)
                evicted.append(oldest)
            }
            recovery.evictedEntries = evicted.count
        }
        removedKeys += evicted.map(\.key)
        // Superseded records are dropped now if they dominate the journal.
        if let current = appendAt, current.recordCount + removedKeys.count >= compactionThreshold(liveCount: index.count) {
            appendAt = nil
        }

        let journal: DiskCacheJournal
        do throws(DiskCacheFileSystem.Failure) {
            if let appendAt {
                journal = try DiskCacheJournal(appendingTo: journalPath, length: appendAt.length, recordCount: appendAt.recordCount)
                for key in removedKeys { journal.appendRemove(key: key) }
                journal.appendOpen()
                try journal.flush()
            } else {
                journal = try DiskCacheJournal(path: journalPath, records: index.recordsOldestFirst)
            }
        } catch {
            throw .fromErrno(error.errno, operation: "write", path: journalPath)
        }
        // Only once the journal no longer references them.
        for (number, segment) in segments where index.liveBytes[number] == nil {
            segments[number] = nil
            if DiskCacheFileSystem.remove(segment.path) { recovery.removedFiles += 1 }
        }
        let current = segments.keys.max()
        return Loaded(index: index, journal: journal, segments: segments, current: current, nextSegment: nextSegment, recovery: recovery)
    }

    /// After a crash: cuts, in every segment holding live entries, whatever follows the last
    /// intact entry after the last live one (an append the crash interrupted; a store that
    /// picked a segment just before a rollover may still have been appending to it), so
    /// appends follow a clean boundary. Reads only those tails. If a cut fails, the bytes
    /// stay as dead bytes: the journal never points into them.
    private static func cutTornTails(_ segments: [UInt64: DiskCacheSegment], after index: DiskCacheIndex) {
        var liveEnds: [UInt64: Int] = [:]
        for record in index.recordsOldestFirst {
            liveEnds[record.segment] = max(liveEnds[record.segment] ?? 0, record.location.offset + record.location.length)
        }
        for (number, end) in liveEnds {
            guard let segment = segments[number] else { continue }
            let intactLength = segment.scan(from: end).intactLength
            if intactLength < segment.length { try? segment.truncate(to: intactLength) }
        }
    }

    /// Without a usable journal: rebuilds the index from the entries the segments hold, oldest
    /// stored first (the best available stand-in for access order). For a key found more than
    /// once, the latest store wins (compaction copies keep their store date).
    private static func rebuild(from segments: [UInt64: DiskCacheSegment], now: Date) -> DiskCacheIndex {
        var found: [(order: Int, record: DiskCacheIndex.Record)] = []
        for number in segments.keys.sorted() {
            guard let segment = segments[number] else { continue }
            let scan = segment.scan()
            // What follows the first damaged or torn entry is not indexed: dead bytes, cut off.
            if scan.intactLength < segment.length { try? segment.truncate(to: scan.intactLength) }
            for entry in scan.entries {
                let metadata = entry.metadata
                found.append((found.count, DiskCacheIndex.Record(
                    key: metadata.key, segment: number, location: entry.location, storedAt: metadata.storedAt,
                    expiresAt: metadata.expiresAt, lastAccessedAt: min(metadata.storedAt, now),
                    validators: metadata.validators, userInfo: metadata.userInfo)))
            }
        }
        found.sort { ($0.record.storedAt, $0.order) < ($1.record.storedAt, $1.order) }
        var index = DiskCacheIndex(minimumCapacity: found.count)
        for (_, record) in found { index.insert(record) }
        return index
    }

    /// Deletes the previous layout's entry files (one file per entry) and, if nothing else is
    /// in it, their folder; returns how many files went. Its journal (version 1) does not
    /// replay, so nothing points at them.
    private static func discardEntryFiles(_ entriesPath: String) -> Int {
        guard let names = try? listFiles(entriesPath) else { return 0 }
        var removed = 0
        for (number, isTemporary) in names where DiskCacheFileSystem.remove(entriesPath + "/" + fileName(number) + (isTemporary ? ".tmp" : "")) {
            removed += 1
        }
        rmdir(entriesPath)
        return removed
    }

    /// The cache's own files in a folder; other names are skipped.
    private static func listFiles(_ folder: String) throws(DiskCacheError) -> [(number: UInt64, isTemporary: Bool)] {
        var files: [(number: UInt64, isTemporary: Bool)] = []
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.forEachName(in: folder) { name in
                if let file = parseFileName(name) { files.append(file) }
            }
        } catch {
            throw .fromErrno(error.errno, operation: "opendir", path: folder)
        }
        return files
    }
}

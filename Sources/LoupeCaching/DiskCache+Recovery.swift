import Foundation

/// Opening a disk cache: replay the journal, and repair whatever a crash or a lost journal left.
extension DiskCache {
    struct Loaded {
        var index: DiskCacheIndex
        var journal: DiskCacheJournal
        var nextGeneration: UInt64
        var recovery: Recovery
    }

    /// Replays the journal and repairs the directory as needed:
    /// - clean shutdown: the journal is trusted as is (no directory listing — the fast path);
    /// - crash (journal intact up to a possibly cut-off last record): the directory is listed
    ///   once to delete temporary files and unreferenced entry files, and to drop entries whose
    ///   file is missing;
    /// - journal missing or damaged: the index is rebuilt from the entry files' trailers.
    /// Then entries over the size limit are evicted, and the journal is appended to (or
    /// rewritten, when it was unusable or mostly superseded records).
    static func load(journalPath: String, entriesPath: String, configuration: Configuration, now: Date) throws(DiskCacheError) -> Loaded {
        var recovery = Recovery()
        let replayed: (DiskCacheJournal.Replay, validLength: Int)?
        do throws(DiskCacheFileSystem.Failure) {
            replayed = try DiskCacheJournal.replay(path: journalPath)
        } catch {
            throw .fromErrno(error.errno, operation: "read", path: journalPath)
        }
        var index: DiskCacheIndex
        var nextGeneration: UInt64
        var appendAt: (length: Int, recordCount: Int)?
        // Keys dropped from the replayed index, to be journaled as removals when appending.
        var removedKeys: [String] = []
        if let (replay, validLength) = replayed, !replay.damaged {
            index = replay.index
            nextGeneration = replay.nextGeneration
            appendAt = (validLength, replay.recordCount)
            if !replay.endedCleanly {
                recovery.previousSessionEndedCleanly = false
                removedKeys = try reconcile(&index, nextGeneration: &nextGeneration, entriesPath: entriesPath, recovery: &recovery)
            }
        } else {
            (index, nextGeneration) = try rebuild(entriesPath: entriesPath, now: now, recovery: &recovery)
            // A brand-new cache has no journal and no files: nothing was recovered.
            if replayed != nil || recovery.removedFiles > 0 || index.count > 0 {
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
        if let current = appendAt, current.recordCount + removedKeys.count >= 2 * index.count + compactionSlack {
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
        for record in evicted { DiskCacheFileSystem.remove(entriesPath + "/" + fileName(record.generation)) }
        return Loaded(index: index, journal: journal, nextGeneration: nextGeneration, recovery: recovery)
    }

    /// After a crash: makes the index and the entry directory agree. Returns the keys dropped
    /// from the index.
    private static func reconcile(_ index: inout DiskCacheIndex, nextGeneration: inout UInt64, entriesPath: String, recovery: inout Recovery) throws(DiskCacheError) -> [String] {
        var missing = index.generations
        for (generation, isTemporary) in try listEntryFiles(entriesPath) {
            nextGeneration = max(nextGeneration, generation &+ 1)
            if !isTemporary, missing.remove(generation) != nil { continue }
            if DiskCacheFileSystem.remove(entriesPath + "/" + fileName(generation) + (isTemporary ? ".tmp" : "")) {
                recovery.removedFiles += 1
            }
        }
        let dropped = index.keys(withGenerations: missing)
        for key in dropped { index.remove(key: key) }
        recovery.droppedEntries += dropped.count
        return dropped
    }

    /// Without a usable journal: rebuilds the index from the trailers of the entry files,
    /// oldest stored first (the best available stand-in for access order).
    private static func rebuild(entriesPath: String, now: Date, recovery: inout Recovery) throws(DiskCacheError) -> (DiskCacheIndex, UInt64) {
        var nextGeneration: UInt64 = 1
        var records: [DiskCacheIndex.Record] = []
        for (generation, isTemporary) in try listEntryFiles(entriesPath) {
            nextGeneration = max(nextGeneration, generation &+ 1)
            let path = entriesPath + "/" + fileName(generation) + (isTemporary ? ".tmp" : "")
            if !isTemporary, let record = DiskCacheEntryFile.readRecord(path: path, generation: generation, now: now) {
                records.append(record)
            } else if DiskCacheFileSystem.remove(path) {
                recovery.removedFiles += 1
            }
        }
        // Oldest first; for one key written twice, the later write wins and its older file goes.
        records.sort { ($0.storedAt, $0.generation) < ($1.storedAt, $1.generation) }
        var index = DiskCacheIndex(minimumCapacity: records.count)
        for record in records {
            if let older = index.record(forKey: record.key), older.generation > record.generation {
                if DiskCacheFileSystem.remove(entriesPath + "/" + fileName(record.generation)) { recovery.removedFiles += 1 }
                continue
            }
            if let replaced = index.insert(record),
               DiskCacheFileSystem.remove(entriesPath + "/" + fileName(replaced.generation)) {
                recovery.removedFiles += 1
            }
        }
        return (index, nextGeneration)
    }

    /// The cache's own files in `entries/`; other names are skipped.
    private static func listEntryFiles(_ entriesPath: String) throws(DiskCacheError) -> [(generation: UInt64, isTemporary: Bool)] {
        var files: [(generation: UInt64, isTemporary: Bool)] = []
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.forEachName(in: entriesPath) { name in
                if let file = parseFileName(name) { files.append(file) }
            }
        } catch {
            throw .fromErrno(error.errno, operation: "opendir", path: entriesPath)
        }
        return files
    }
}

import Foundation

/// Compaction: reclaiming the dead bytes that evictions, removals and overwrites leave in the
/// append-only segments (the rule is on ``DiskCache``).
///
/// It runs on the cache's compaction queue, never on a caller's store, in bounded steps: each
/// step copies at most `stepBytes` of live entries, verbatim and checked, from the segment
/// with the smallest live fraction to the current segment, journals their new addresses and
/// only then, once the old segment holds nothing live, deletes it. The lock is held only to
/// pick the work and to commit it, never during the copies.
extension DiskCache {
    /// The most entry bytes one compaction step copies before committing them.
    static let stepBytes = 4 << 20

    /// Queues a compaction if the dead bytes call for one and none is queued.
    func scheduleCompactionIfNeeded() {
        let schedule = state.withLock { state in
            guard !state.compactionScheduled, state.journal != nil, !state.isClosing,
                  state.deadBytes > configuration.compactionTrigger
            else { return false }
            state.compactionScheduled = true
            return true
        }
        if schedule { compactionQueue.async { [self] in compact() } }
    }

    /// Waits for any compaction queued so far (tests, and `close()`).
    func waitForCompaction() {
        compactionQueue.sync {}
    }

    /// Segments compaction has emptied and deleted so far (package-visible for the crash
    /// tests' child process, which waits for compaction to be under way).
    package var compactedSegments: Int {
        state.withLock { $0.compactedSegments }
    }

    /// Compacts segments until the dead bytes are at most `compactionTarget`, the cache closes,
    /// or a step cannot proceed (a failed write: the next store schedules it again).
    private func compact() {
        while let (number, source) = pickSegment() {
            guard moveLiveEntries(out: source, number: number) else {
                state.withLock { $0.compactionScheduled = false }
                return
            }
            let deletable = state.withLock { state -> [String] in
                let paths = retireEmptySegments(&state)
                state.compactedSegments += paths.count
                return paths
            }
            // The journal holds every moved entry's new address by now.
            for path in deletable { DiskCacheFileSystem.remove(path) }
        }
    }

    /// The sealed segment with the smallest live fraction, or `nil` (clearing the scheduled
    /// flag under the same lock) when there is nothing to do. When only the current segment
    /// holds dead bytes, it is sealed so the next pick can take it.
    private func pickSegment() -> (UInt64, DiskCacheSegment)? {
        state.withLock { state in
            guard state.journal != nil, !state.isClosing, state.deadBytes > configuration.compactionTarget else {
                state.compactionScheduled = false
                return nil
            }
            var best: (number: UInt64, liveFraction: Double)?
            for (number, length) in state.segmentLengths where number != state.current && state.appending[number] == nil && length > 0 {
                let live = state.index.liveBytes[number] ?? 0
                guard live < length else { continue }
                let fraction = Double(live) / Double(length)
                if fraction < best?.liveFraction ?? 2 { best = (number, fraction) }
            }
            if let best, let segment = state.segments[best.number] { return (best.number, segment) }
            if let current = state.current, state.appending[current] == nil,
               let length = state.segmentLengths[current], length > (state.index.liveBytes[current] ?? 0),
               let segment = state.segments[current] {
                state.current = nil
                return (current, segment)
            }
            // Dead bytes sit in a segment an append is writing to: the store that finishes it
            // schedules compaction again.
            state.compactionScheduled = false
            return nil
        }
    }

    /// Copies the live entries of segment `number` to the current segment in steps, journaling
    /// each step's new addresses before the next. Returns `false` when a write failed or the
    /// cache is closing (what was journaled stands; the rest stays where it was).
    private func moveLiveEntries(out source: DiskCacheSegment, number: UInt64) -> Bool {
        var remaining = state.withLock { $0.index.records(inSegment: number) }[...]
        while !remaining.isEmpty {
            var batch: [DiskCacheIndex.Record] = []
            var batchBytes = 0
            while let next = remaining.first, batch.isEmpty || batchBytes + next.location.length <= Self.stepBytes {
                batch.append(next)
                batchBytes += next.location.length
                remaining = remaining.dropFirst()
            }
            guard let target = state.withLock({ (state) -> (UInt64, DiskCacheSegment)? in
                guard state.journal != nil, !state.isClosing else { return nil }
                return try? beginAppend(&state, bytes: batchBytes)
            }) else { return false }
            var moved: [(record: DiskCacheIndex.Record, location: DiskCacheSegment.Location)] = []
            var corrupt: [DiskCacheIndex.Record] = []
            var writeFailed = false
            var readFailed = false
            var end: Int?
            for record in batch {
                let copied = source.withCheckedEntry(record.location) { bytes in
                    Result { () throws(DiskCacheFileSystem.Failure) in try target.1.appendCopy(of: bytes, location: record.location) }
                }
                switch copied {
                case .success(.success(let location)):
                    moved.append((record, location))
                    end = location.offset + location.length
                case .success(.failure):
                    writeFailed = true
                case .failure(.corrupt):
                    corrupt.append(record)
                case .failure(.failed):
                    // An unreadable entry stays where it is, and so does its segment: this
                    // compaction stops rather than pick the same segment again.
                    readFailed = true
                }
                if writeFailed || readFailed { break }
            }
            let committed = state.withLock { state -> Bool in
                endAppend(&state, segment: target.0, end: end)
                if writeFailed, state.current == target.0 { state.current = nil }
                guard let journal = state.journal else { return false }
                // Only entries still current are repointed: one replaced or removed meanwhile
                // leaves its copy as dead bytes.
                let movable = moved.filter { state.index.record(forKey: $0.record.key)?.isSameWrite(as: $0.record) == true }
                let droppable = corrupt.filter { state.index.record(forKey: $0.key)?.isSameWrite(as: $0) == true }
                for (record, location) in movable { journal.appendMove(key: record.key, to: target.0, location: location) }
                for record in droppable { journal.appendRemove(key: record.key) }
                do throws(DiskCacheFileSystem.Failure) {
                    try journal.flush()
                } catch {
                    // Not journaled: the index keeps the old addresses, and the old segment stays.
                    return false
                }
                for (record, location) in movable { state.index.move(key: record.key, to: target.0, location: location) }
                for record in droppable { state.index.remove(key: record.key) }
                compactJournalIfNeeded(&state)
                return !writeFailed && !readFailed
            }
            guard committed else { return false }
        }
        return true
    }
}

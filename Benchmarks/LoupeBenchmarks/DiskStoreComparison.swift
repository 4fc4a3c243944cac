import Foundation
import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

/// `LoupeBenchmarks disk-stores`: the disk cache's write and read paths side by side, for the
/// entries the pipeline stores (100 KB downloads) and small ones (8 KB):
/// - one file per entry, the previous `DiskCache` layout, reproduced here (`FilePerEntryStore`:
///   payload hashed, temporary file, `writev` of payload + trailer, `close`, `rename`, a journal
///   record; reads `open/fstat/read/close`, the checksum verified on the first read);
/// - `DiskCache` itself: append-only segments with the journal as index (one `writev` per
///   entry, no file created; its journal record, eviction and compaction scheduling included);
/// - the same segment format read from an mmap of the segment (`SegmentStore`, a prototype
///   without eviction, compaction or locking), for the read path's best case;
/// - the floor: the payload alone appended with one `pwrite` into blocks reserved ahead as
///   `DiskCacheSegment` reserves them, no framing, checksum or journal (`BareWriteStore`); what
///   any store that keeps 100 KB in a file pays the kernel.
///
/// SQLite through GRDB (one row per entry, WAL, `synchronous = NORMAL`) was a candidate too;
/// it lost on both paths (README, benchmark table) and was removed with its dependency.
///
/// They run interleaved, round by round (A B C D A B C D), each run in a fresh directory
/// (deleted only at the end); CPU is the process's user + system time (the kernel's writeback
/// threads are not in it, for any of them). Reads: a warm entry read back repeatedly, one byte
/// of each 4 KB page touched; the prototypes do not record the access (`DiskCache` buffers an
/// access record per read), which favours them. The mmap variant hands out mapped bytes
/// without a copy: the best case for mmap, since a real store must keep a mapping alive while
/// any `Data` from it lives.
enum DiskStoreComparison {
    /// A store under test: write an entry, read one back.
    protocol Store: AnyObject {
        func store(_ data: Data, forKey key: String) throws
        func data(forKey key: String) throws -> Data?
        func close()
    }

    static func run() throws {
        let rounds = ProcessInfo.processInfo.environment["LOUPE_DISK_STORE_ROUNDS"].flatMap(Int.init).map { max(1, $0) } ?? 7
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-disk-stores-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        print("-- disk cache write path, interleaved (A B C D per round, \(rounds) rounds after a warm-up); load average \(PipelineBenchmark.loadAverage())")
        let makers: [(name: String, make: (URL) throws -> any Store)] = [
            ("one file per entry (previous)", { try FilePerEntryStore(directory: $0) }),
            ("DiskCache (segments)", { try CacheStore(directory: $0) }),
            ("segments, reads from mmap", { try SegmentStore(directory: $0, readsFromMapping: true) }),
            ("bare pwrite (the floor)", { try BareWriteStore(directory: $0) }),
        ]
        var directory = 0
        for (size, count) in [(100_000, 300), (8_000, 1_000)] {
            let payload = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 8) })
            var writes = [[Double]](repeating: [], count: makers.count)
            var writeWall = [[Double]](repeating: [], count: makers.count)
            var reads = [[Double]](repeating: [], count: makers.count)
            for round in 0...rounds {
                for (index, maker) in makers.enumerated() {
                    directory += 1
                    let folder = root.appendingPathComponent("\(directory)")
                    let store = try maker.make(folder)
                    let cpuBefore = processCPUSeconds()
                    let start = ContinuousClock.now
                    for key in 0..<count { try store.store(payload, forKey: "https://example.com/images/\(round)/\(key).jpg") }
                    let wall = seconds(start.duration(to: .now))
                    let cpu = processCPUSeconds() - cpuBefore
                    let readCount = 1_000
                    let key = "https://example.com/images/\(round)/\(count / 2).jpg"
                    _ = try store.data(forKey: key) // first read verifies the checksum
                    let readStart = ContinuousClock.now
                    for _ in 0..<readCount {
                        guard let data = try store.data(forKey: key), data.count == size else { throw BenchmarkError("\(maker.name): read missed") }
                        // One byte per 4 KB page, as a decoder reads them all: a mapping's pages
                        // must be there too, not only its length.
                        blackHole(stride(from: 0, to: size, by: 4_096).reduce(UInt8(0)) { $0 &+ data[$1] })
                    }
                    let readTime = seconds(readStart.duration(to: .now))
                    store.close()
                    if round > 0 {
                        writes[index].append(cpu / Double(count) * 1e6)
                        writeWall[index].append(wall / Double(count) * 1e6)
                        reads[index].append(readTime / Double(readCount) * 1e6)
                    }
                }
            }
            print("  \(size / 1000) KB entries, \(count) stores per run:")
            for (index, maker) in makers.enumerated() {
                var line = String(format: "    %@ store %6.1f µs CPU (%.1f–%.1f), %6.1f µs wall; warm read %5.1f µs",
                                  maker.name.padding(toLength: 32, withPad: " ", startingAt: 0),
                                  Measurement.median(of: writes[index]), writes[index].min() ?? 0, writes[index].max() ?? 0,
                                  Measurement.median(of: writeWall[index]), Measurement.median(of: reads[index]))
                if index > 0 {
                    let ratios = zip(writes[index], writes[0]).map { $0 / $1 }
                    let readRatios = zip(reads[index], reads[0]).map { $0 / $1 }
                    line += String(format: "\n      per pair vs one file per entry: store CPU %.2f× (%.2f–%.2f), warm read %.2f× (%.2f–%.2f)",
                                   Measurement.median(of: ratios), ratios.min() ?? 0, ratios.max() ?? 0,
                                   Measurement.median(of: readRatios), readRatios.min() ?? 0, readRatios.max() ?? 0)
                }
                print(line)
            }
        }
        print("  load average after: \(PipelineBenchmark.loadAverage())")
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    // MARK: DiskCache

    final class CacheStore: Store {
        let cache: DiskCache
        init(directory: URL) throws { cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30)) }
        func store(_ data: Data, forKey key: String) throws { try cache.store(data, forKey: key) }
        func data(forKey key: String) throws -> Data? { try cache.data(forKey: key) }
        func close() { cache.close() }
    }

    // MARK: The floor

    /// Payloads appended to one file with a `pwrite` each, into blocks reserved 4 MB ahead
    /// (`DiskCacheSegment.reserveStep`); an in-memory index of offsets; reads are one `pread`.
    final class BareWriteStore: Store {
        private let descriptor: Int32
        private var end = 0
        private var reserved = 0
        private var index: [String: (offset: Int, count: Int)] = [:]

        init(directory: URL) throws {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            descriptor = open(directory.path + "/payloads", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw BenchmarkError("open: \(errno)") }
        }

        func store(_ data: Data, forKey key: String) throws {
            if end + data.count > reserved {
                let target = max(end + data.count, reserved + DiskCacheSegment.reserveStep)
                try? DiskCacheFileSystem.reserveBlocks(descriptor, offset: reserved, length: target - reserved)
                reserved = target
            }
            let written = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(end)) }
            guard written == data.count else { throw BenchmarkError("pwrite: \(errno)") }
            index[key] = (end, data.count)
            end += data.count
        }

        func data(forKey key: String) throws -> Data? {
            guard let entry = index[key] else { return nil }
            var data = Data(count: entry.count)
            let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, entry.count, off_t(entry.offset)) }
            guard got == entry.count else { throw BenchmarkError("pread: \(errno)") }
            return data
        }

        func close() {
            Glibc.close(descriptor)
        }
    }

    // MARK: One file per entry

    /// The previous `DiskCache` write path, kept here only to be measured against: each entry
    /// in its own file, written to a temporary name and renamed into place, with a trailer
    /// (key, checksum) after the payload and a journal record per store.
    final class FilePerEntryStore: Store {
        private struct Entry {
            var name: String
            var size: Int
            var checksum: UInt64
            var verified: Bool
        }

        private let directory: String
        private let journal: Int32
        private var index: [String: Entry] = [:]
        private var counter = 0

        init(directory: URL) throws {
            self.directory = directory.path + "/entries"
            try FileManager.default.createDirectory(atPath: self.directory, withIntermediateDirectories: true)
            journal = open(directory.path + "/journal", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard journal >= 0 else { throw BenchmarkError("journal: \(errno)") }
        }

        func store(_ data: Data, forKey key: String) throws {
            counter += 1
            let name = String(counter, radix: 16)
            let checksum = data.withUnsafeBytes { DiskCacheChecksum.hash($0) }
            var trailer = Array(key.utf8)
            withUnsafeBytes(of: checksum.littleEndian) { trailer.append(contentsOf: $0) }
            let temporary = directory + "/" + name + ".tmp"
            let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw BenchmarkError("create: \(errno)") }
            let written = data.withUnsafeBytes { payload in
                trailer.withUnsafeBytes { tail in
                    var vectors = [iovec(iov_base: UnsafeMutableRawPointer(mutating: payload.baseAddress), iov_len: payload.count),
                                   iovec(iov_base: UnsafeMutableRawPointer(mutating: tail.baseAddress), iov_len: tail.count)]
                    return writev(descriptor, &vectors, 2)
                }
            }
            guard written == data.count + trailer.count, Glibc.close(descriptor) == 0, rename(temporary, directory + "/" + name) == 0 else {
                throw BenchmarkError("write: \(errno)")
            }
            var record = trailer
            withUnsafeBytes(of: UInt64(counter).littleEndian) { record.append(contentsOf: $0) }
            guard record.withUnsafeBytes({ write(journal, $0.baseAddress, $0.count) }) == record.count else {
                throw BenchmarkError("journal write: \(errno)")
            }
            if let replaced = index.updateValue(Entry(name: name, size: data.count, checksum: checksum, verified: false), forKey: key) {
                unlink(directory + "/" + replaced.name)
            }
        }

        func data(forKey key: String) throws -> Data? {
            guard let entry = index[key] else { return nil }
            let descriptor = open(directory + "/" + entry.name, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw BenchmarkError("open: \(errno)") }
            defer { Glibc.close(descriptor) }
            var info = stat()
            guard fstat(descriptor, &info) == 0, let buffer = malloc(Int(info.st_size)) else { throw BenchmarkError("fstat: \(errno)") }
            guard read(descriptor, buffer, Int(info.st_size)) == Int(info.st_size) else {
                free(buffer)
                throw BenchmarkError("read: \(errno)")
            }
            let payload = Data(bytesNoCopy: buffer, count: entry.size, deallocator: .free)
            if !entry.verified {
                guard payload.withUnsafeBytes({ DiskCacheChecksum.hash($0) }) == entry.checksum else { throw BenchmarkError("corrupt") }
                index[key]?.verified = true
            }
            return payload
        }

        func close() {
            Glibc.close(journal)
        }
    }

    // MARK: Segments

    /// Entries appended to 64 MB segment files in the disk cache's own segment format
    /// (`DiskCacheSegment`: header, metadata, payload, checksummed footer, one `writev`); a
    /// prototype journal maps keys to where they are (one record per store). Enough to measure
    /// the read path from a mapping, not a cache (no eviction, compaction, recovery or locking).
    final class SegmentStore: Store {
        private struct Location {
            var segment: Int
            var location: DiskCacheSegment.Location
            var verified: Bool
        }

        private static let segmentLimit = 64 << 20
        private let directory: String
        private var segments: [DiskCacheSegment] = []
        private let journal: Int32
        private var index: [String: Location] = [:]
        /// Reads from a read-only mapping of each segment instead of `pread`, handing out the
        /// mapped bytes without a copy (the best case for mmap: a real store would have to keep
        /// a mapping alive while any `Data` from it lives, and remap as segments grow).
        private let readsFromMapping: Bool
        private var mappings: [Int: UnsafeRawBufferPointer] = [:]

        init(directory: URL, readsFromMapping: Bool = false) throws {
            self.readsFromMapping = readsFromMapping
            self.directory = directory.path
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            journal = open(directory.path + "/journal", O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
            guard journal >= 0 else { throw BenchmarkError("journal: \(errno)") }
            try startSegment()
        }

        private func startSegment() throws {
            do {
                segments.append(try DiskCacheSegment(path: directory + "/segment-\(segments.count)"))
            } catch {
                throw BenchmarkError("segment: \(error.errno)")
            }
        }

        func store(_ data: Data, forKey key: String) throws {
            if let last = segments.last, last.length + data.count > Self.segmentLimit { try startSegment() }
            let now = Date()
            let metadata = DiskCacheEntryFile.Metadata(key: key, storedAt: now, expiresAt: now.addingTimeInterval(7 * 86_400),
                                                       validators: DiskCacheValidators(), userInfo: nil)
            let written: DiskCacheSegment.Location
            do {
                written = try segments[segments.count - 1].append(data, metadata: metadata)
            } catch {
                throw BenchmarkError("segment write: \(error.errno)")
            }
            let location = Location(segment: segments.count - 1, location: written, verified: false)
            // Journal record: length, key, segment, offset, length, checksum.
            var record: [UInt8] = []
            record.reserveCapacity(key.utf8.count + 36)
            withUnsafeBytes(of: UInt32(key.utf8.count).littleEndian) { record.append(contentsOf: $0) }
            record.append(contentsOf: key.utf8)
            for value in [UInt64(location.segment), UInt64(written.offset), UInt64(written.length), written.checksum] {
                withUnsafeBytes(of: value.littleEndian) { record.append(contentsOf: $0) }
            }
            guard record.withUnsafeBytes({ write(journal, $0.baseAddress, $0.count) }) == record.count else {
                throw BenchmarkError("journal write: \(errno)")
            }
            index[key] = location
        }

        func data(forKey key: String) throws -> Data? {
            guard let entry = index[key] else { return nil }
            if readsFromMapping { return try mappedData(entry, forKey: key) }
            // As DiskCache: the checksum is verified on the first read of a session.
            switch segments[entry.segment].read(entry.location, verify: !entry.verified) {
            case .payload(let data):
                index[key]?.verified = true
                return data
            case .corrupt: throw BenchmarkError("segment read: corrupt")
            case .failed(let code): throw BenchmarkError("segment read: \(code)")
            }
        }

        private func mappedData(_ entry: Location, forKey key: String) throws -> Data {
            let mapping: UnsafeRawBufferPointer
            if let mapped = mappings[entry.segment] {
                mapping = mapped
            } else {
                let length = segments[entry.segment].length
                let descriptor = open(directory + "/segment-\(entry.segment)", O_RDONLY | O_CLOEXEC)
                guard descriptor >= 0 else { throw BenchmarkError("open for mmap: \(errno)") }
                defer { Glibc.close(descriptor) }
                guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, descriptor, 0), base != MAP_FAILED else {
                    throw BenchmarkError("mmap: \(errno)")
                }
                mapping = UnsafeRawBufferPointer(start: base, count: length)
                mappings[entry.segment] = mapping
            }
            let location = entry.location
            guard location.offset + location.length <= mapping.count, let base = mapping.baseAddress else { throw BenchmarkError("mapping too short") }
            if !entry.verified {
                // The same work as DiskCacheSegment's check: the payload hashed, then the rest.
                _ = DiskCacheChecksum.hash(UnsafeRawBufferPointer(rebasing: mapping[location.offset..<(location.offset + location.length)]))
                index[key]?.verified = true
            }
            return Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base + location.payloadOffset), count: location.payloadSize, deallocator: .none)
        }

        func close() {
            for mapping in mappings.values { munmap(UnsafeMutableRawPointer(mutating: mapping.baseAddress), mapping.count) }
            mappings = [:]
            // Each segment's descriptor closes when its last reference goes.
            Glibc.close(journal)
            segments = []
        }
    }
}

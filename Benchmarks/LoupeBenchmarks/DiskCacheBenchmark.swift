import Foundation
import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

/// `swift run -c release LoupeBenchmarks disk`: the disk cache beside raw file I/O, in one run.
///
/// - read: a warm 100 KB entry vs a raw `open/fstat/read/close` of the very same file (target ≤ 1.3×);
/// - write: a 100 KB store vs a raw write to a temporary file + rename (target ≤ 1.5×);
/// - open: 10k and 100k entries, after a clean close and after a crash (journal not closed);
/// - trim: the store that crosses the size limit and evicts 20 % of the entries.
///
/// Each figure is the median of several samples; read and write samples alternate with their
/// reference so both see the same machine state.
enum DiskCacheBenchmark {
    /// Runs every part, or only the one named by the environment variable
    /// `LOUPE_DISK_BENCH_ONLY` ("read", "open" or "trim").
    static func run() throws {
        let only = ProcessInfo.processInfo.environment["LOUPE_DISK_BENCH_ONLY"]
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-disk-bench-\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        print("disk cache benchmark (medians; \(ProcessInfo.processInfo.activeProcessorCount) cores)")
        if only == nil || only == "read" { try readAndWrite(root.appendingPathComponent("rw")) }
        if only == nil || only == "open" {
            for count in [10_000, 100_000] { try open(root.appendingPathComponent("open-\(count)"), entries: count) }
        }
        if only == nil || only == "trim" { try trim(root.appendingPathComponent("trim")) }
    }

    // MARK: Read and write

    private static func readAndWrite(_ directory: URL) throws {
        let payload = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
        defer { cache.close() }
        try cache.store(payload, forKey: "warm")
        // The raw reference reads the cache's own segment file (the only one in segments/, holding
        // just this entry: its payload plus about 100 bytes of framing).
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/segments")
        guard names.count == 1, let entryName = names.first else { throw BenchmarkError("expected one segment file") }
        let entryPath = directory.path + "/segments/" + entryName

        let iterations = 2000
        var cacheReads: [Double] = []
        var rawReads: [Double] = []
        var foundationReads: [Double] = []
        var checksum = 0
        for _ in 0..<15 {
            cacheReads.append(try perOperation(iterations) { checksum &+= try cache.data(forKey: "warm")?.count ?? 0 })
            rawReads.append(try perOperation(iterations) { checksum &+= try rawRead(entryPath).count })
            foundationReads.append(try perOperation(iterations) { checksum &+= try Data(contentsOf: URL(fileURLWithPath: entryPath)).count })
        }
        report("read 100 KB warm, cache", cacheReads, reference: ("raw open/fstat/read/close", rawReads), target: 1.3)
        report("read 100 KB, Data(contentsOf:)", foundationReads, reference: ("raw open/fstat/read/close", rawReads), target: nil)
        try firstReads(directory.deletingLastPathComponent().appendingPathComponent("first"), payload: payload, rawReads: rawReads)

        let rawDirectory = directory.path + "/raw"
        try FileManager.default.createDirectory(atPath: rawDirectory, withIntermediateDirectories: true)
        let writeIterations = 300
        var cacheWrites: [Double] = []
        var rawWrites: [Double] = []
        var rawOverwrites: [Double] = []
        var sequence = 0
        for _ in 0..<15 {
            cacheWrites.append(try perOperation(writeIterations) { try cache.store(payload, forKey: "written") })
            rawWrites.append(try perOperation(writeIterations) {
                try rawWrite(payload, directory: rawDirectory, sequence: sequence)
                sequence += 1
            })
            rawOverwrites.append(try perOperation(20) { try rawWrite(payload, directory: rawDirectory, sequence: nil) })
        }
        report("write 100 KB, cache", cacheWrites, reference: ("raw write tmp + rename to a new name + unlink old", rawWrites), target: 1.5)
        report("raw write tmp + rename over the same name", rawOverwrites, reference: ("raw write tmp + rename to a new name + unlink old", rawWrites), target: nil)
        if checksum == 42 { print("") } // keeps the reads observable to the optimizer
    }

    private static func rawRead(_ path: String) throws -> Data {
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw BenchmarkError("open \(path): \(errno)") }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, let buffer = malloc(Int(info.st_size)) else { throw BenchmarkError("fstat") }
        let size = Int(info.st_size)
        var total = 0
        while total < size {
            let got = read(descriptor, buffer + total, size - total)
            guard got > 0 else {
                free(buffer)
                throw BenchmarkError("read: \(errno)")
            }
            total += got
        }
        return Data(bytesNoCopy: buffer, count: size, deallocator: .free)
    }

    /// Every 100 KB entry read once after reopening: each read verifies the
    /// checksum (what the first read of an entry in a session costs).
    private static func firstReads(_ directory: URL, payload: Data, rawReads: [Double]) throws {
        let count = 200
        do {
            let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
            for index in 0..<count { try cache.store(payload, forKey: "k\(index)") }
            cache.close()
        }
        var samples: [Double] = []
        for _ in 0..<7 {
            let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
            var index = 0
            samples.append(try perOperation(count) {
                guard try cache.data(forKey: "k\(index)")?.count == payload.count else { throw BenchmarkError("first read missed") }
                index += 1
            })
            cache.close()
        }
        report("read 100 KB first in session (checksum verified), cache", samples, reference: ("raw open/fstat/read/close", rawReads), target: nil)
    }

    /// A raw atomic write. With `sequence`, the file gets a new name and the previous one is
    /// unlinked (what the cache does); with `nil`, it is renamed over the same name, which ext4
    /// (auto_da_alloc) answers by flushing the new file's data before the rename.
    private static func rawWrite(_ payload: Data, directory: String, sequence: Int?) throws {
        let temporary = directory + "/entry.tmp"
        let descriptor = Glibc.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkError("open: \(errno)") }
        let written = payload.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        let target = directory + "/entry" + (sequence.map { "-\($0)" } ?? "")
        guard written == payload.count, rename(temporary, target) == 0 else { throw BenchmarkError("write: \(errno)") }
        if let sequence, sequence > 0 { unlink(directory + "/entry-\(sequence - 1)") }
    }

    // MARK: Open

    private static func open(_ directory: URL, entries count: Int) throws {
        let payload = Data(repeating: 7, count: 100)
        var start = ContinuousClock.now
        do {
            let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
            for index in 0..<count { try cache.store(payload, forKey: "https://example.com/images/\(index).jpg") }
            cache.close()
        }
        print("  (populated \(count) entries in \(format(seconds(ContinuousClock.now - start))))")
        var clean: [Double] = []
        var afterCrash: [Double] = []
        let journal = directory.path + "/journal"
        for _ in 0..<5 {
            start = ContinuousClock.now
            var cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
            clean.append(seconds(ContinuousClock.now - start))
            guard cache.count == count, cache.recovery.previousSessionEndedCleanly else { throw BenchmarkError("clean open lost entries") }
            cache.close()
            // Make it look like the process died: drop the final `close` record (9 bytes).
            guard truncate(journal, off_t(try fileSize(journal) - 9)) == 0 else { throw BenchmarkError("truncate: \(errno)") }
            start = ContinuousClock.now
            cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 1 << 30))
            afterCrash.append(seconds(ContinuousClock.now - start))
            guard cache.count == count, !cache.recovery.previousSessionEndedCleanly else { throw BenchmarkError("crash open lost entries") }
            cache.close()
        }
        report("open \(count) entries, clean", clean, reference: nil, target: nil)
        report("open \(count) entries, after crash", afterCrash, reference: nil, target: nil)
    }

    // MARK: Trim

    private static func trim(_ directory: URL) throws {
        let entrySize = 1000
        let count = 10_000
        let cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: entrySize * count, lowWaterFraction: 0.8))
        defer { cache.close() }
        let payload = Data(repeating: 3, count: entrySize)
        var next = 0
        var trims: [Double] = []
        var plain: [Double] = []
        var evictedPerTrim = 0
        for _ in 0..<7 {
            // Fill to exactly the limit, then time one ordinary store and the store that trims.
            while cache.totalSize + entrySize <= entrySize * count {
                try cache.store(payload, forKey: "k\(next)")
                next += 1
            }
            try cache.removeValue(forKey: "k\(next - 1)")
            let before = cache.count
            plain.append(try perOperation(1) { try cache.store(payload, forKey: "k\(next)") })
            next += 1
            trims.append(try perOperation(1) { try cache.store(payload, forKey: "k\(next)") })
            next += 1
            evictedPerTrim = before + 2 - cache.count
        }
        report("store that trims \(evictedPerTrim) of \(count) entries", trims, reference: ("ordinary store", plain), target: nil)
        let median = trims.sorted()[trims.count / 2]
        print("  trim cost per evicted entry: \(format(median / Double(evictedPerTrim)))")
    }

    // MARK: Measuring

    private static func perOperation(_ iterations: Int, _ body: () throws -> Void) throws -> Double {
        let start = ContinuousClock.now
        for _ in 0..<iterations { try body() }
        return seconds(ContinuousClock.now - start) / Double(iterations)
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private static func fileSize(_ path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { throw BenchmarkError("stat \(path): \(errno)") }
        return Int(info.st_size)
    }

    private static func report(_ name: String, _ samples: [Double], reference: (String, [Double])?, target: Double?) {
        let median = samples.sorted()[samples.count / 2]
        var line = "  \(name): \(format(median))"
        if let (referenceName, referenceSamples) = reference {
            let referenceMedian = referenceSamples.sorted()[referenceSamples.count / 2]
            let ratio = median / referenceMedian
            line += " vs \(referenceName) \(format(referenceMedian)) = \(String(format: "%.2f", ratio))×"
            if let target { line += ratio <= target ? " (target ≤ \(target)×: met)" : " (target ≤ \(target)×: MISSED)" }
        }
        print(line)
    }

    private static func format(_ seconds: Double) -> String {
        seconds >= 1e-3 ? String(format: "%.2f ms", seconds * 1e3) : String(format: "%.1f µs", seconds * 1e6)
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

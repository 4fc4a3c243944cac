import Foundation
import Testing
@testable import LoupeCaching
@testable import LoupeDiskCacheStress
import LoupeTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("loupe-disk-cache-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    var path: String { url.path }
    var segmentsPath: String { path + "/segments" }
    /// The previous layout's folder (one file per entry), which opening deletes.
    var entriesPath: String { path + "/entries" }
    var journalPath: String { path + "/journal" }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// Names in `segments/`.
    func segmentFileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: segmentsPath).sorted()
    }

    /// The segment file holding `key`'s entry and where the entry lies in it, as the journal
    /// says (opens the cache and closes it again).
    func location(of key: String) throws -> (path: String, location: DiskCacheSegment.Location) {
        let cache = try DiskCache(directory: url)
        defer { cache.close() }
        let record = try #require(cache.state.withLock { $0.index.record(forKey: key) })
        return (segmentsPath + "/" + DiskCache.fileName(record.segment), record.location)
    }

    /// Changes the byte at `offset` of the file at `path` in place (same inode, same size).
    func flipByte(at offset: Int, in path: String) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: Data([byte ^ 0x01]))
    }
}

/// A wall clock (`Date`s, as the disk cache persists them) that the test moves by hand.
final class TestClock: Sendable {
    private let current: Locked<Date>

    init(_ start: Date = Date(timeIntervalSince1970: 1_700_000_000)) {
        current = Locked(start)
    }

    func now() -> Date { current.withLock { $0 } }

    func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

func bytes(_ count: Int, seed: UInt8 = 1) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}

/// A running `LoupeDiskCacheStress` child (see Probes/LoupeDiskCacheStress/main.swift).
final class StressChild: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    let child: ChildProcess

    init(_ arguments: [String]) throws {
        child = try ChildProcess(ChildProcess.product("LoupeDiskCacheStress"), arguments, standardInput: true)
    }

    /// The next line of output, or `nil` at end of output or after `timeout` seconds.
    func readLine(timeout: TimeInterval = 30) -> String? {
        child.nextLine(timeout: .milliseconds(Int(timeout * 1000)))
    }

    /// Kills the child (SIGKILL) and waits until it is reaped.
    func kill() { child.kill() }

    /// Closes the child's stdin (the `hold` mode's signal to exit), waits for it to exit and
    /// returns its status (the signal's number when one ended it).
    func finish() throws -> Int32 {
        child.closeInput()
        return try child.waitForExitBlocking(timeout: .seconds(60)).status
    }

    /// Whether a signal (the test's SIGKILL) ended the child.
    var wasKilled: Bool { child.exit?.signalled == true }
}

/// Whether `data` is a complete payload written by the stress child for `key`.
func isValidStressPayload(_ data: Data, key: UInt32) -> Bool {
    DiskCacheStressPayload.isValid(data, key: key)
}

/// A payload in the stress child's self-describing format.
func stressPayload(key: UInt32, version: UInt32, size: Int) -> Data {
    DiskCacheStressPayload.make(key: key, version: version, size: size)
}

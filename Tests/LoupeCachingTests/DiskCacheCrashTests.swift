import LoupeTestSupport
import Foundation
import Testing
@testable import LoupeCaching
@testable import LoupeDiskCacheStress

#if canImport(Glibc)
import Glibc
#endif

/// Real child processes (`LoupeDiskCacheStress`): killed with SIGKILL in the middle of writes,
/// holding the directory, and hitting real file-size and permission faults.
@Suite struct DiskCacheCrashTests {
    /// What one round saw after reopening the cache the killed child left.
    private struct Round: Sendable {
        var endedCleanly: Bool
        var totalSize: Int
        var servedBytes: Int
        var entries: Int
        var invalidPayloadKeys: [UInt32]
        var fileNames: [String]
        /// Dead segment bytes once the compaction the reopened cache scheduled has run.
        var deadBytesAfterCompaction: Int
        var childKilledBySignal: Bool
    }

    @Test(.timeLimit(.minutes(5)))
    func sigkillDuringWritesNeverLeavesPartialOrCorruptPayloads() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limit = 1 << 20
        let rounds = try await onOwnThread { () throws -> [Round] in
            var random = SplitMix64(seed: 0xD15C)
            var rounds: [Round] = []
            for round in 0..<30 {
                let child = try StressChild(["write", directory.path, String(limit)])
                let ready = child.readLine()
                // Let it write for a random while (5–200 ms), then kill it wherever it is.
                usleep(UInt32(5_000 + random.next() % 195_000))
                child.kill()
                guard ready == "ready" else { throw StressChild.Failure("round \(round): the child did not start") }

                // Any corruptEntry error thrown here fails the test: a SIGKILL must not produce any.
                let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: limit))
                var result = Round(
                    endedCleanly: cache.recovery.previousSessionEndedCleanly, totalSize: cache.totalSize, servedBytes: 0,
                    entries: cache.count, invalidPayloadKeys: [], fileNames: [], deadBytesAfterCompaction: 0,
                    childKilledBySignal: child.wasKilled)
                for key in 0..<UInt32(DiskCacheStressPayload.keyCount) {
                    guard let data = try cache.data(forKey: DiskCacheStressPayload.key(key)) else { continue }
                    if !isValidStressPayload(data, key: key) { result.invalidPayloadKeys.append(key) }
                    result.servedBytes += data.count
                }
                result.fileNames = try directory.segmentFileNames()
                cache.waitForCompaction()
                result.deadBytesAfterCompaction = cache.deadBytes
                cache.close()
                rounds.append(result)
            }
            return rounds
        }
        for (number, round) in rounds.enumerated() {
            #expect(round.childKilledBySignal, "round \(number)")
            // The kill landed while the cache was open and busy.
            #expect(!round.endedCleanly, "round \(number)")
            #expect(round.invalidPayloadKeys.isEmpty, "round \(number): bad payloads for keys \(round.invalidPayloadKeys)")
            #expect(round.totalSize <= limit, "round \(number)")
            #expect(round.servedBytes == round.totalSize, "round \(number)")
            // Only segments, and the disk they use is bounded again once compaction has run.
            #expect(round.fileNames.allSatisfy { DiskCache.parseFileName($0)?.isTemporary == false }, "round \(number): \(round.fileNames)")
            #expect(round.deadBytesAfterCompaction <= limit / 2, "round \(number): \(round.deadBytesAfterCompaction) dead bytes")
        }
        #expect(rounds.map(\.entries).reduce(0, +) > rounds.count)
    }

    /// The child stores 40 entries, then churns other keys in 64 KB segments so compaction keeps
    /// copying the 40 forward and deleting segments; it is killed at a random moment once a
    /// compaction has completed. Every one of the 40 stores returned, so each must be served.
    @Test(.timeLimit(.minutes(5)))
    func sigkillDuringCompactionLosesNothingThatWasStored() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let rounds = try await onOwnThread { () throws -> [(served: Int, invalid: [UInt32], compacted: Bool, killed: Bool)] in
            var random = SplitMix64(seed: 0xC0A1)
            var rounds: [(served: Int, invalid: [UInt32], compacted: Bool, killed: Bool)] = []
            for round in 0..<12 {
                let child = try StressChild(["compact", directory.path])
                let kept = child.readLine(timeout: 60)
                let compacting = kept == "kept" ? child.readLine(timeout: 60) : nil
                usleep(UInt32(random.next() % 100_000))
                child.kill()
                guard kept == "kept" else { throw StressChild.Failure("round \(round): the child did not store its entries") }
                let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: 4 << 20))
                var served = 0
                var invalid: [UInt32] = []
                for key in 0..<UInt32(DiskCacheStressPayload.keeperCount) {
                    guard let data = try cache.data(forKey: DiskCacheStressPayload.key(key)) else { continue }
                    served += 1
                    if !isValidStressPayload(data, key: key) || data.count != 12 + DiskCacheStressPayload.keeperSize { invalid.append(key) }
                }
                cache.close()
                rounds.append((served, invalid, compacting == "compacting", child.wasKilled))
            }
            return rounds
        }
        for (number, round) in rounds.enumerated() {
            #expect(round.killed, "round \(number)")
            #expect(round.compacted, "round \(number): no compaction before the kill")
            #expect(round.served == DiskCacheStressPayload.keeperCount, "round \(number)")
            #expect(round.invalid.isEmpty, "round \(number): \(round.invalid)")
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func secondProcessIsRefusedUntilTheOwnerGoes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.url.standardizedFileURL.path
        let (whileHeld, childStatus, afterExit, afterKill) = try await onOwnThread { () throws -> (DiskCacheError?, Int32, DiskCache.Recovery, DiskCache.Recovery) in
            let child = try StressChild(["hold", directory.path])
            guard child.readLine() == "ready" else { throw StressChild.Failure("the holding child did not start") }
            var whileHeld: DiskCacheError?
            do throws(DiskCacheError) {
                try DiskCache(directory: directory.url).close()
            } catch {
                whileHeld = error
            }
            let childStatus = try child.finish()
            let afterExit = try DiskCache(directory: directory.url)
            afterExit.close()

            // A killed owner releases the lock too (the kernel drops it with the process).
            let killed = try StressChild(["hold", directory.path])
            guard killed.readLine() == "ready" else { throw StressChild.Failure("the second holding child did not start") }
            killed.kill()
            let afterKill = try DiskCache(directory: directory.url)
            afterKill.close()
            return (whileHeld, childStatus, afterExit.recovery, afterKill.recovery)
        }
        #expect(whileHeld == .directoryInUse(path: path))
        #expect(childStatus == 0)
        #expect(afterExit.previousSessionEndedCleanly)
        #expect(!afterKill.previousSessionEndedCleanly)
    }

    @Test(.timeLimit(.minutes(1)))
    func diskFullAndUnwritableDirectoryAreTypedErrorsAndReadsKeepWorking() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (lines, status) = try await onOwnThread { () throws -> ([String: String], Int32) in
            let child = try StressChild(["faults", directory.path])
            var lines: [String: String] = [:]
            while let line = child.readLine(), let colon = line.firstIndex(of: ":") {
                lines[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
            }
            return (lines, try child.finish())
        }
        #expect(status == 0)
        let path = directory.url.standardizedFileURL.path
        #expect(lines["full.store"]?.hasPrefix("noSpace(path: \"\(path)/segments/") == true, "\(lines)")
        #expect(lines["full.read"] == "5 valid")
        #expect(lines["full.count"] == "5")
        #expect(lines["readonly.store"]?.hasPrefix("notWritable(path: \"\(path)/segments/") == true, "\(lines)")
        #expect(lines["readonly.read"] == "5 valid")
        #expect(lines["readonly.count"] == "5")
        // Undo the non-root variant's chmod so the directory can be removed.
        chmod(directory.segmentsPath, 0o755)
        // The failed writes left nothing behind (the cut-back append, no new segment) and the
        // cache reopens intact.
        #expect(try directory.segmentFileNames() == [DiskCache.fileName(1)])
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(cache.count == 5)
        #expect(cache.deadBytes == 0)
        for index in 0..<5 {
            let data = try #require(try cache.data(forKey: DiskCacheStressPayload.key(UInt32(index))))
            #expect(isValidStressPayload(data, key: UInt32(index)))
        }
    }
}

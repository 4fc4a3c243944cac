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
    @Test(.timeLimit(.minutes(5)))
    func sigkillDuringWritesNeverLeavesPartialOrCorruptPayloads() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let limit = 1 << 20
        let rounds = 30
        var uncleanRounds = 0
        var entriesSeen = 0
        var random = SplitMix64(seed: 0xD15C)
        for round in 0..<rounds {
            let child = try StressChild(["write", directory.path, String(limit), String(round)])
            let ready = child.readLine()
            // Let it write for a random while (5–200 ms), then kill it wherever it is.
            usleep(UInt32(5_000 + random.next() % 195_000))
            child.kill()
            try #require(ready == "ready", "round \(round): child did not start")
            #expect(child.process.terminationReason == .uncaughtSignal)

            let cache = try DiskCache(directory: directory.url, configuration: .init(sizeLimit: limit))
            if !cache.recovery.previousSessionEndedCleanly { uncleanRounds += 1 }
            #expect(cache.totalSize <= limit, "round \(round)")
            var storedTotal = 0
            for key in 0..<UInt32(DiskCacheStressPayload.keyCount) {
                // Any corruptEntry error fails the test: a SIGKILL must not produce any.
                if let data = try cache.data(forKey: DiskCacheStressPayload.key(key)) {
                    #expect(isValidStressPayload(data, key: key), "round \(round): bad payload for key \(key)")
                    storedTotal += data.count
                    entriesSeen += 1
                }
            }
            #expect(storedTotal == cache.totalSize, "round \(round)")
            // The directory holds exactly the indexed entries: no temporary files, no orphans.
            let names = try directory.entryFileNames()
            #expect(names.count == cache.count, "round \(round): \(names.count) files for \(cache.count) entries")
            #expect(names.allSatisfy { DiskCache.parseFileName($0)?.isTemporary == false })
            cache.close()
        }
        // The kills really landed while the cache was open and busy.
        #expect(uncleanRounds == rounds)
        #expect(entriesSeen > rounds)
    }

    @Test(.timeLimit(.minutes(1)))
    func secondProcessIsRefusedUntilTheOwnerGoes() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try StressChild(["hold", directory.path])
        try #require(child.readLine() == "ready")
        #expect(throws: DiskCacheError.directoryInUse(path: directory.url.standardizedFileURL.path)) {
            try DiskCache(directory: directory.url)
        }
        child.finish()
        #expect(child.process.terminationStatus == 0)
        let cache = try DiskCache(directory: directory.url)
        #expect(cache.recovery.previousSessionEndedCleanly)
        cache.close()

        // A killed owner releases the lock too (the kernel drops it with the process).
        let killed = try StressChild(["hold", directory.path])
        try #require(killed.readLine() == "ready")
        killed.kill()
        let afterKill = try DiskCache(directory: directory.url)
        #expect(!afterKill.recovery.previousSessionEndedCleanly)
        afterKill.close()
    }

    @Test(.timeLimit(.minutes(1)))
    func diskFullAndUnwritableDirectoryAreTypedErrorsAndReadsKeepWorking() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let child = try StressChild(["faults", directory.path])
        var lines: [String: String] = [:]
        while let line = child.readLine(), let colon = line.firstIndex(of: ":") {
            lines[String(line[..<colon])] = String(line[line.index(colon, offsetBy: 2)...])
        }
        child.finish()
        #expect(child.process.terminationStatus == 0)
        let path = directory.url.standardizedFileURL.path
        #expect(lines["full.store"]?.hasPrefix("noSpace(path: \"\(path)/entries/") == true, "\(lines)")
        #expect(lines["full.read"] == "5 valid")
        #expect(lines["full.count"] == "5")
        #expect(lines["readonly.store"]?.hasPrefix("notWritable(path: \"\(path)/entries/") == true, "\(lines)")
        #expect(lines["readonly.read"] == "5 valid")
        #expect(lines["readonly.count"] == "5")
        // Undo the non-root variant's chmod so the directory can be removed.
        chmod(directory.entriesPath, 0o755)
        // The failed writes left nothing behind and the cache reopens intact.
        #expect(try directory.entryFileNames().count == 5)
        let cache = try DiskCache(directory: directory.url)
        defer { cache.close() }
        #expect(cache.count == 5)
    }
}

// Child process for the disk cache's crash and fault tests (Tests/LoupeCachingTests).
// Not a product: the tests launch it from the build directory.
//
//   LoupeDiskCacheStress write <dir> <sizeLimit>          writes, reads, revalidates and removes
//       entries from 3 threads until killed (bounded: stops after 60 s); prints "ready" once open.
//   LoupeDiskCacheStress compact <dir>                  stores 40 "keeper" entries (prints "kept"
//       once every store returned), then overwrites and removes other keys in small segments so
//       compaction keeps moving the keepers; prints "compacting" once it has deleted a segment,
//       and goes on until killed (bounded: 60 s).
//   LoupeDiskCacheStress hold <dir>                      opens the cache, prints "ready", and keeps
//       it open until stdin closes (bounded: 60 s).
//   LoupeDiskCacheStress faults <dir>                    stores entries, then hits a real
//       file-size limit (RLIMIT_FSIZE) and a real unwritable directory, printing one line per
//       observation for the test to check.
//
// Payloads are self-describing (`DiskCacheStressPayload`), so whoever reads them back can tell a
// partial or mixed-up payload from a correct one without knowing what was written.
import Foundation
import LoupeCaching

#if canImport(Glibc)
import Glibc
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Unbuffered, so the parent sees each line at once (the child may be killed right after).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: LoupeDiskCacheStress write|hold|faults <dir> ...") }
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)

switch arguments[1] {
case "write":
    guard arguments.count == 4, let limit = Int(arguments[3]) else {
        fail("usage: LoupeDiskCacheStress write <dir> <sizeLimit>")
    }
    runWriter(directory: directory, sizeLimit: limit)
case "hold":
    let cache: DiskCache
    do {
        cache = try DiskCache(directory: directory)
    } catch {
        fail("open failed: \(error)")
    }
    say("ready")
    // Bounded wait: until the parent closes stdin or 60 s pass.
    var pollDescriptor = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
    _ = poll(&pollDescriptor, 1, 60_000)
    cache.close()
case "faults":
    runFaults(directory: directory)
case "compact":
    runCompaction(directory: directory)
default:
    fail("unknown mode \(arguments[1])")
}

func runWriter(directory: URL, sizeLimit: Int) {
    let cache: DiskCache
    do {
        var configuration = DiskCache.Configuration(sizeLimit: sizeLimit)
        // Small segments: the kills land in rollovers and compactions, not only in appends.
        configuration.segmentSize = 256 * 1024
        cache = try DiskCache(directory: directory, configuration: configuration)
    } catch {
        fail("open failed: \(error)")
    }
    say("ready")
    let deadline = Date().addingTimeInterval(60)
    DispatchQueue.concurrentPerform(iterations: 3) { _ in
        var random = SystemRandomNumberGenerator()
        while Date() < deadline {
            let keyIndex = UInt32(random.next() % UInt64(DiskCacheStressPayload.keyCount))
            let key = DiskCacheStressPayload.key(keyIndex)
            do {
                switch random.next() % 10 {
                case 0..<6:
                    let size = Int(random.next() % 48_000)
                    let version = UInt32(truncatingIfNeeded: random.next())
                    try cache.store(DiskCacheStressPayload.make(key: keyIndex, version: version, size: size), forKey: key,
                                    validators: DiskCacheValidators(etag: "\"\(version)\""))
                case 6..<8:
                    if let entry = try cache.entry(forKey: key), !DiskCacheStressPayload.isValid(entry.data, key: keyIndex) {
                        fail("read a bad payload for \(key)")
                    }
                case 8:
                    try cache.markRevalidated(forKey: key, expiry: .after(3600))
                default:
                    try cache.removeValue(forKey: key)
                }
            } catch {
                fail("operation failed: \(error)")
            }
        }
    }
    cache.close()
}

func runCompaction(directory: URL) {
    let cache: DiskCache
    do {
        var configuration = DiskCache.Configuration(sizeLimit: 4 << 20)
        configuration.segmentSize = 64 * 1024
        cache = try DiskCache(directory: directory, configuration: configuration)
        for index in 0..<DiskCacheStressPayload.keeperCount {
            try cache.store(DiskCacheStressPayload.make(key: UInt32(index), version: 1, size: DiskCacheStressPayload.keeperSize),
                            forKey: DiskCacheStressPayload.key(UInt32(index)), expiry: .never)
        }
    } catch {
        fail("setup failed: \(error)")
    }
    say("kept")
    let deadline = Date().addingTimeInterval(60)
    var random = SystemRandomNumberGenerator()
    var announced = false
    while Date() < deadline {
        let index = UInt32(DiskCacheStressPayload.keeperCount) + UInt32(random.next() % 16)
        do {
            if random.next() % 4 == 0 {
                try cache.removeValue(forKey: DiskCacheStressPayload.key(index))
            } else {
                try cache.store(DiskCacheStressPayload.make(key: index, version: UInt32(truncatingIfNeeded: random.next()), size: 30_000),
                                forKey: DiskCacheStressPayload.key(index))
            }
        } catch {
            fail("operation failed: \(error)")
        }
        if !announced, cache.compactedSegments > 0 {
            announced = true
            say("compacting")
        }
    }
    cache.close()
}

func runFaults(directory: URL) {
    let cache: DiskCache
    do {
        cache = try DiskCache(directory: directory, configuration: .init(sizeLimit: 10_000_000))
        for index in 0..<5 {
            try cache.store(DiskCacheStressPayload.make(key: UInt32(index), version: 1, size: 10_000), forKey: DiskCacheStressPayload.key(UInt32(index)))
        }
    } catch {
        fail("setup failed: \(error)")
    }

    func readAll() -> String {
        var valid = 0
        for index in 0..<5 {
            do {
                if let data = try cache.data(forKey: DiskCacheStressPayload.key(UInt32(index))),
                   DiskCacheStressPayload.isValid(data, key: UInt32(index)) {
                    valid += 1
                }
            } catch {
                return "error \(error)"
            }
        }
        return "\(valid) valid"
    }

    func attemptStore() -> String {
        do {
            try cache.store(DiskCacheStressPayload.make(key: 99, version: 1, size: 200_000), forKey: DiskCacheStressPayload.key(99))
            return "stored"
        } catch {
            return "\(error)"
        }
    }

    // 1. A real "disk full": the kernel refuses to grow any file past 64 KB (EFBIG). Without
    // ignoring SIGXFSZ the process would be killed instead.
    signal(SIGXFSZ, SIG_IGN)
    var saved = rlimit()
    getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
    var small = saved
    small.rlim_cur = 64 * 1024
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &small) == 0 else { fail("setrlimit failed: \(errno)") }
    say("full.store: \(attemptStore())")
    say("full.read: \(readAll())")
    say("full.count: \(cache.count)")
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved) == 0 else { fail("restoring rlimit failed: \(errno)") }

    // 2. A real unwritable directory. Root ignores permission bits, so as root drop to `nobody`
    // (the cache's open descriptors stay valid, as they would after a remount read-only);
    // otherwise remove write permission from the segments directory. The failed store above
    // ended the current segment, so this store must create a file there.
    if getuid() == 0 {
        guard setgid(65534) == 0, setuid(65534) == 0 else { fail("dropping privileges failed: \(errno)") }
    } else {
        guard chmod(directory.appendingPathComponent("segments").path, 0o555) == 0 else { fail("chmod failed: \(errno)") }
    }
    say("readonly.store: \(attemptStore())")
    say("readonly.read: \(readAll())")
    say("readonly.count: \(cache.count)")
    cache.close()
}

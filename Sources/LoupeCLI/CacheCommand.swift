import ArgumentParser
import Foundation
import LoupeCaching

/// `loupe cache`: look after the disk cache `loupe fetch` fills.
struct CacheCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cache",
        abstract: "Show, trim or clear the disk cache.",
        subcommands: [Stats.self, Trim.self, Clear.self])

    /// Options every cache subcommand takes.
    struct Location: ParsableArguments {
        @Option(help: ArgumentHelp("Disk cache folder (default: $XDG_CACHE_HOME/loupe, else ~/.cache/loupe).", valueName: "dir"))
        var cacheDir: String?

        var directory: URL { CacheLocation.directory(explicit: cacheDir) }

        /// The cache, opened without evicting anything (the size limit is the caller's to
        /// apply); `nil` when the folder does not exist, so looking never creates it.
        func open() throws -> DiskCache? {
            guard FileManager.default.fileExists(atPath: directory.path) else { return nil }
            do {
                return try DiskCache(directory: directory, configuration: .init(sizeLimit: Int.max / 2))
            } catch .directoryInUse {
                throw StandardError.failure("the cache \(directory.path) is in use by another loupe process; try again when it ends")
            } catch {
                throw StandardError.failure("cannot open the cache \(directory.path): \(error)")
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Entries, size, limit, oldest and expired entries.")

        @OptionGroup var location: Location

        @Option(help: ArgumentHelp("The size limit `loupe fetch` applies, in MB (reported, not applied).", valueName: "MB"))
        var diskLimit = 256

        @Flag(help: "One JSON object instead of text.")
        var json = false

        func run() async throws {
            let cache = try location.open()
            defer { cache?.close() }
            let summary = cache?.summary
            let count = summary?.count ?? 0, size = summary?.totalSize ?? 0
            let expiredCount = summary?.expiredCount ?? 0, expiredSize = summary?.expiredSize ?? 0
            let oldest = summary?.oldestStoredAt
            let limit = diskLimit << 20
            if json {
                var object = JSONObject()
                object.add("directory", .string(location.directory.path))
                object.add("entries", .int(count))
                object.add("bytes", .int(size))
                object.add("limit", .int(limit))
                object.add("oldestEntry", oldest.map { JSONObject.Value.string(ISO8601DateFormatter().string(from: $0)) } ?? .null)
                object.add("expiredEntries", .int(expiredCount))
                object.add("expiredBytes", .int(expiredSize))
                StandardOutput.writeLine(object.serialized)
                return
            }
            let percent = Double(size) / Double(limit) * 100
            StandardOutput.writeLine("""
                cache:    \(location.directory.path)\(cache == nil ? " (does not exist yet)" : "")
                entries:  \(count)
                size:     \(ByteCount.format(size)) of \(ByteCount.format(limit)) limit (\(String(format: "%.1f", percent)) %)
                oldest:   \(oldest.map { "\(ISO8601DateFormatter().string(from: $0)) (\(Self.age(since: $0)) ago)" } ?? "-")
                expired:  \(expiredCount) entries, \(ByteCount.format(expiredSize)) (revalidated with the server when next used)
                """)
        }

        static func age(since date: Date) -> String {
            let seconds = max(0, Int(Date().timeIntervalSince(date)))
            switch seconds {
            case ..<120: return "\(seconds) s"
            case ..<7_200: return "\(seconds / 60) min"
            case ..<172_800: return "\(seconds / 3_600) h"
            default: return "\(seconds / 86_400) days"
            }
        }
    }

    struct Trim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove least recently used entries down to the limit (or --to), and with --expired the expired ones.")

        @OptionGroup var location: Location

        @Option(help: ArgumentHelp("The size limit to trim to, in MB.", valueName: "MB"))
        var diskLimit = 256

        @Option(help: ArgumentHelp("Trim to this size instead, in MB (0 empties the cache).", valueName: "MB"))
        var to: Int?

        @Flag(help: "Also remove every expired entry, whatever the size.")
        var expired = false

        func validate() throws {
            guard diskLimit >= 1 else { throw ValidationError("--disk-limit must be at least 1 MB, got \(diskLimit)") }
            if let to, to < 0 { throw ValidationError("--to must not be negative, got \(to)") }
        }

        func run() async throws {
            guard let cache = try location.open() else {
                StandardOutput.writeLine("nothing to trim: \(location.directory.path) does not exist")
                return
            }
            defer { cache.close() }
            let target = (to ?? diskLimit) << 20
            do {
                let expiredRemoved = expired ? try cache.removeExpired() : 0
                let evicted = try cache.trim(toSize: target)
                StandardOutput.writeLine(
                    "removed \(expiredRemoved + evicted) entries (\(expiredRemoved) expired, \(evicted) least recently used); "
                    + "\(cache.count) entries, \(ByteCount.format(cache.totalSize)) left")
            } catch {
                throw StandardError.failure("trimming \(location.directory.path) failed: \(error)")
            }
        }
    }

    struct Clear: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove every entry.")

        @OptionGroup var location: Location

        func run() async throws {
            guard let cache = try location.open() else {
                StandardOutput.writeLine("nothing to clear: \(location.directory.path) does not exist")
                return
            }
            defer { cache.close() }
            let count = cache.count
            do {
                try cache.removeAll()
            } catch {
                throw StandardError.failure("clearing \(location.directory.path) failed: \(error)")
            }
            StandardOutput.writeLine("removed \(count) entries from \(location.directory.path)")
        }
    }
}

import Foundation

extension DiskCache {
    /// Limits and defaults of a disk cache.
    public struct Configuration: Sendable {
        /// Maximum total payload size in bytes (payload bytes, not allocated blocks).
        public var sizeLimit: Int
        /// When a write crosses `sizeLimit`, entries are evicted until the total is at most this
        /// fraction of it, so the next writes do not each pay for an eviction.
        public var lowWaterFraction: Double
        /// Time to live of entries stored with `DiskCacheExpiry.default`; `nil` means never expire.
        public var defaultTimeToLive: TimeInterval?
        /// A segment file takes no new entries once it holds this many bytes (tests use small
        /// segments to exercise rollover and compaction).
        package var segmentSize = 64 << 20

        /// A configuration; the defaults are 256 MB, a low-water mark of 80 % and a week.
        ///
        /// - Parameters:
        ///   - sizeLimit: the most payload bytes the cache holds; must be positive (opening a cache checks
        ///     all three and throws `DiskCacheError.invalidConfiguration` for a value out of range).
        ///   - lowWaterFraction: the share of `sizeLimit` an eviction brings the total down to, in (0, 1].
        ///   - defaultTimeToLive: seconds an entry stored with `DiskCacheExpiry.default` stays fresh; `nil`
        ///     for never; not negative.
        public init(sizeLimit: Int = 256 * 1024 * 1024, lowWaterFraction: Double = 0.8, defaultTimeToLive: TimeInterval? = 7 * 24 * 60 * 60) {
            self.sizeLimit = sizeLimit
            self.lowWaterFraction = lowWaterFraction
            self.defaultTimeToLive = defaultTimeToLive
        }

        var lowWaterMark: Int { Int(Double(sizeLimit) * lowWaterFraction) }
        /// Dead segment bytes that start a compaction.
        var compactionTrigger: Int { sizeLimit / 2 }
        /// Dead segment bytes a compaction brings the segments down to.
        var compactionTarget: Int { sizeLimit / 4 }
    }
}

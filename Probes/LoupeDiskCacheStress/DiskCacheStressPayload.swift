import Foundation

/// Self-describing payloads: `key: u32 | version: u32 | length: u32 | bytes`, where `bytes` is a
/// pattern derived from key, version and position. A truncated, torn (zero-filled) or swapped
/// payload fails `isValid`, independently of the cache's own checksum.
///
/// The tests check what a killed child wrote with these same rules (`@testable import`).
enum DiskCacheStressPayload {
    static let keyCount = 64
    /// The `compact` mode's entries that are stored once and must survive every kill.
    static let keeperCount = 40
    static let keeperSize = 20_000

    /// Keys with awkward content on purpose: slashes, `..`, non-ASCII.
    static func key(_ index: UInt32) -> String {
        "stress/../\(index)/é☃"
    }

    // Plain loops over `Int` ranges and byte arrays: the tests run this in debug builds under
    // ThreadSanitizer from many threads, where generic iteration (`0..<UInt32`, `indices`) goes
    // through the runtime's metadata cache for every byte and slows to a crawl.
    static func make(key: UInt32, version: UInt32, size: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: 12 + size)
        for (offset, field) in [key, version, UInt32(size)].enumerated() {
            for shift in 0..<4 { bytes[offset * 4 + shift] = UInt8(truncatingIfNeeded: field >> (8 * UInt32(shift))) }
        }
        for index in 0..<size { bytes[12 + index] = byte(index, key: key, version: version) }
        return Data(bytes)
    }

    private static func byte(_ index: Int, key: UInt32, version: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (UInt32(truncatingIfNeeded: index) &* 0x9E37_79B1 &+ version &* 0x85EB_CA77 &+ key) >> 13)
    }

    static func isValid(_ data: Data, key: UInt32) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 12 else { return false }
        func field(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        guard field(0) == key, Int(field(8)) == bytes.count - 12 else { return false }
        let version = field(4)
        for index in 0..<(bytes.count - 12) where bytes[12 + index] != byte(index, key: key, version: version) {
            return false
        }
        return true
    }
}

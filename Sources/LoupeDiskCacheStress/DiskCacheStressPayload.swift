import Foundation

/// Self-describing payloads: `key: u32 | version: u32 | length: u32 | bytes`, where `bytes` is a
/// pattern derived from key, version and position. A truncated, torn (zero-filled) or swapped
/// payload fails `isValid`, independently of the cache's own checksum.
///
/// The tests check what a killed child wrote with these same rules (`@testable import`).
enum DiskCacheStressPayload {
    static let keyCount = 64

    /// Keys with awkward content on purpose: slashes, `..`, non-ASCII.
    static func key(_ index: UInt32) -> String {
        "stress/../\(index)/é☃"
    }

    static func make(key: UInt32, version: UInt32, size: Int) -> Data {
        var data = Data(capacity: 12 + size)
        for field in [key, version, UInt32(size)] {
            withUnsafeBytes(of: field.littleEndian) { data.append(contentsOf: $0) }
        }
        for index in 0..<UInt32(size) { data.append(byte(index, key: key, version: version)) }
        return data
    }

    private static func byte(_ index: UInt32, key: UInt32, version: UInt32) -> UInt8 {
        UInt8(truncatingIfNeeded: (index &* 0x9E37_79B1 &+ version &* 0x85EB_CA77 &+ key) >> 13)
    }

    static func isValid(_ data: Data, key: UInt32) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 12 else { return false }
        func field(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        guard field(0) == key, Int(field(8)) == bytes.count - 12 else { return false }
        let version = field(4)
        return bytes[12...].indices.allSatisfy { bytes[$0] == byte(UInt32($0 - 12), key: key, version: version) }
    }
}

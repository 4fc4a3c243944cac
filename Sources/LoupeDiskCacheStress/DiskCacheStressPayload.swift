import Foundation

/// Self-describing payloads: `key: u32 | version: u32 | length: u32 | bytes`, where `bytes` is a
/// pseudo-random stream seeded by key and version. A truncated, torn or swapped payload fails
/// `isValid`, independently of the cache's own checksum.
///
/// The crash test reads what the killed child wrote with the same rules (the test target has a
/// copy of `isValid`, since an executable cannot be imported).
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
        var random = SplitMix64(seed: UInt64(key) << 32 | UInt64(version))
        for _ in 0..<size { data.append(UInt8(truncatingIfNeeded: random.next())) }
        return data
    }

    static func isValid(_ data: Data, key: UInt32) -> Bool {
        let bytes = [UInt8](data)
        guard bytes.count >= 12 else { return false }
        func field(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        guard field(0) == key, Int(field(8)) == bytes.count - 12 else { return false }
        return bytes == [UInt8](make(key: key, version: field(4), size: bytes.count - 12))
    }
}

/// A small deterministic generator (SplitMix64), so a payload can be regenerated from its seed.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

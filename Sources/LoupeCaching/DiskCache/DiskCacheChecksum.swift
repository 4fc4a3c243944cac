/// XXH64 (xxHash, 64-bit), used by the disk cache to detect torn or damaged entry files and
/// journal records (package: the benchmarks checksum their prototype stores the same way).
///
/// Why a non-cryptographic hash: the threat is a crash, a short write or bit rot, not an
/// attacker, and the check runs on every read, so it must cost little next to the read itself
/// (XXH64 runs at memory speed; a table CRC-32 would cost more than the file read).
package enum DiskCacheChecksum {
    private static let prime1: UInt64 = 0x9E37_79B1_85EB_CA87
    private static let prime2: UInt64 = 0xC2B2_AE3D_27D4_EB4F
    private static let prime3: UInt64 = 0x1656_67B1_9E37_79F9
    private static let prime4: UInt64 = 0x85EB_CA77_C2B2_AE63
    private static let prime5: UInt64 = 0x27D4_EB2F_1656_67C5

    /// The XXH64 digest of `bytes` with `seed`. Chaining (`seed:` = digest of a previous part)
    /// lets a writer checksum a payload and its trailer without copying them together.
    package static func hash(_ bytes: UnsafeRawBufferPointer, seed: UInt64 = 0) -> UInt64 {
        let count = bytes.count
        var offset = 0
        var acc: UInt64
        if count >= 32 {
            var v1 = seed &+ prime1 &+ prime2
            var v2 = seed &+ prime2
            var v3 = seed
            var v4 = seed &- prime1
            // Four independent lanes keep the multiplier pipelines busy.
            while offset <= count - 32 {
                v1 = round(v1, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
                v2 = round(v2, bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self).littleEndian)
                v3 = round(v3, bytes.loadUnaligned(fromByteOffset: offset + 16, as: UInt64.self).littleEndian)
                v4 = round(v4, bytes.loadUnaligned(fromByteOffset: offset + 24, as: UInt64.self).littleEndian)
                offset += 32
            }
            acc = rotate(v1, 1) &+ rotate(v2, 7) &+ rotate(v3, 12) &+ rotate(v4, 18)
            acc = merge(acc, v1)
            acc = merge(acc, v2)
            acc = merge(acc, v3)
            acc = merge(acc, v4)
        } else {
            acc = seed &+ prime5
        }
        acc &+= UInt64(count)
        while offset + 8 <= count {
            acc ^= round(0, bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian)
            acc = rotate(acc, 27) &* prime1 &+ prime4
            offset += 8
        }
        if offset + 4 <= count {
            acc ^= UInt64(bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian) &* prime1
            acc = rotate(acc, 23) &* prime2 &+ prime3
            offset += 4
        }
        while offset < count {
            acc ^= UInt64(bytes[offset]) &* prime5
            acc = rotate(acc, 11) &* prime1
            offset += 1
        }
        acc ^= acc >> 33
        acc &*= prime2
        acc ^= acc >> 29
        acc &*= prime3
        acc ^= acc >> 32
        return acc
    }

    static func hash(_ bytes: [UInt8], seed: UInt64 = 0) -> UInt64 {
        bytes.withUnsafeBytes { hash($0, seed: seed) }
    }

    @inline(__always)
    private static func round(_ acc: UInt64, _ input: UInt64) -> UInt64 {
        rotate(acc &+ input &* prime2, 31) &* prime1
    }

    @inline(__always)
    private static func merge(_ acc: UInt64, _ lane: UInt64) -> UInt64 {
        (acc ^ round(0, lane)) &* prime1 &+ prime4
    }

    @inline(__always)
    private static func rotate(_ value: UInt64, _ bits: UInt64) -> UInt64 {
        (value << bits) | (value >> (64 - bits))
    }
}

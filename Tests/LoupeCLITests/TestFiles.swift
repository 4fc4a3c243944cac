import Foundation
import LoupeCodecs
import LoupeTestSupport

/// The files the origin serves to `loupe` in these tests.
enum TestFiles {
    /// A PNG of `width`×`height` with half its pixels transparent.
    static func pngWithAlpha(width: Int, height: Int) throws -> Data {
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let i = (y * width + x) * 4
                pixels[i] = 200
                pixels[i + 1] = UInt8(y * 255 / max(1, height - 1))
                pixels[i + 2] = 40
                pixels[i + 3] = x < width / 2 ? 255 : 0
            }
        }
        return try ImageEncoder().encode(Bitmap(width: width, height: height, pixels: pixels), as: .png)
    }

    /// A 74-byte PNG declaring 20,000 × 20,000 pixels (400 MP): a decompression bomb's header.
    static var pngBomb: Data {
        png(width: 20_000, height: 20_000, idat: [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01], corruptHeader: false)
    }

    /// A 64 × 64 PNG whose header checksum is wrong.
    static var pngWithBadChecksum: Data {
        png(width: 64, height: 64, idat: [0x78, 0x9C, 0x63, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01], corruptHeader: true)
    }

    /// Pseudo-random bytes (not an image).
    static func noise(_ count: Int) -> Data {
        var random = SplitMix64(seed: 7)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    private static func png(width: Int, height: Int, idat: [UInt8], corruptHeader: Bool) -> Data {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ body: [UInt8], corrupt: Bool = false) -> [UInt8] {
            let typed = Array(type.utf8) + body
            return be32(body.count) + typed + be32(Int(crc32(typed) ^ (corrupt ? 1 : 0)))
        }
        let header = be32(width) + be32(height) + [8, 6, 0, 0, 0]
        return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", header, corrupt: corruptHeader) + chunk("IDAT", idat) + chunk("IEND", []))
    }

    /// PNG's CRC-32 (ISO 3309, reflected polynomial 0xEDB88320).
    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

import CLoupeCodecs
import Foundation

/// Puts an ICC profile into encoded JPEG, PNG and WebP bytes, in each container's own place
/// (AVIF's goes through libavif): for outputs that should say "sRGB" explicitly.
enum ProfileEmbedding {
    /// lcms2's sRGB profile, serialized once; nil only if lcms2 cannot write it.
    static let sRGB: Data? = {
        var bytes: UnsafeMutablePointer<UInt8>?
        var size = 0
        var message = CMessage()
        guard message.withPointer({ lc_srgb_profile(&bytes, &size, $0) }) == LC_OK, let bytes else { return nil }
        defer { lc_free(bytes) }
        return Data(bytes: bytes, count: size)
    }()

    /// `jpeg` with APP2 "ICC_PROFILE" segments (64 KB each at most) after SOI and any APP0.
    static func jpeg(_ jpeg: Data, profile: Data) -> Data {
        let bytes = [UInt8](jpeg)
        var insertAt = 2
        if bytes.count > 6, bytes[2] == 0xFF, bytes[3] == 0xE0 { insertAt = 4 + (Int(bytes[4]) << 8 | Int(bytes[5])) }
        let chunkSize = 65_519
        let chunks = stride(from: 0, to: profile.count, by: chunkSize).map { Array(profile[profile.startIndex + $0 ..< profile.startIndex + min($0 + chunkSize, profile.count)]) }
        var segments: [UInt8] = []
        for (index, chunk) in chunks.enumerated() {
            let length = 2 + 14 + chunk.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)] + Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(chunks.count)] + chunk
        }
        return Data(bytes[..<insertAt] + segments + bytes[insertAt...])
    }

    /// `png` with an iCCP chunk after IHDR (the profile in a zlib stream of stored blocks: a
    /// few KB, not worth a compressor).
    static func png(_ png: Data, profile: Data) -> Data {
        let bytes = [UInt8](png)
        let ihdrEnd = 8 + 4 + 4 + 13 + 4
        var zlib: [UInt8] = [0x78, 0x01]
        let raw = [UInt8](profile)
        var offset = 0
        repeat {
            let count = min(65_535, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            zlib += [final, UInt8(count & 0xFF), UInt8(count >> 8), UInt8(~count & 0xFF), UInt8((~count >> 8) & 0xFF)]
            zlib += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in raw { a = (a + UInt32(byte)) % 65_521; b = (b + a) % 65_521 }
        zlib += bigEndian(b << 16 | a)
        let body = Array("iCCP".utf8) + Array("sRGB".utf8) + [0, 0] + zlib
        let chunk = bigEndian(UInt32(body.count - 4)) + body + bigEndian(crc32(body))
        return Data(bytes[..<ihdrEnd] + chunk + bytes[ihdrEnd...])
    }

    /// `webp` in the extended (VP8X) layout with an ICCP chunk after VP8X.
    static func webp(_ webp: Data, profile: Data, width: Int, height: Int, hasAlpha: Bool) -> Data {
        let bytes = [UInt8](webp)
        guard bytes.count >= 20 else { return webp }
        var chunks = Array(bytes[12...])
        let iccp = Array("ICCP".utf8) + littleEndian(UInt32(profile.count)) + [UInt8](profile) + (profile.count % 2 == 1 ? [0] : [])
        if Array(chunks[0..<4]) == Array("VP8X".utf8) {
            chunks[8] |= 0x20  // ICC flag
            chunks = Array(chunks[0..<18]) + iccp + Array(chunks[18...])
        } else {
            // A simple file: VP8X gives the canvas (sides minus one, 24 bits each) and flags.
            let flags: UInt8 = 0x20 | (hasAlpha ? 0x10 : 0)
            let w = littleEndian(UInt32(width - 1)), h = littleEndian(UInt32(height - 1))
            let vp8x = Array("VP8X".utf8) + littleEndian(10) + [flags, 0, 0, 0] + Array(w[0..<3]) + Array(h[0..<3])
            chunks = vp8x + iccp + chunks
        }
        return Data(Array("RIFF".utf8) + littleEndian(UInt32(4 + chunks.count)) + Array("WEBP".utf8) + chunks)
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    private static func littleEndian(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value.littleEndian, Array.init) }

    private static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

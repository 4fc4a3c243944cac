import Foundation

/// Writes BMP and ICO in Swift: both are a header in front of bytes Loupe already has (rows of
/// pixels; a PNG). BMP is 24-bit, or 32-bit with a V4 header whose masks name the alpha byte
/// when the bitmap has transparency (the one BMP layout browsers and Pillow read alpha from);
/// rows bottom-up. ICO is imgproxy's: one PNG entry in an icon directory.
enum BMPEncoder {
    static func bmp(_ bitmap: Bitmap) -> Data {
        let alpha = bitmap.hasTransparency
        let bytesPerPixel = alpha ? 4 : 3
        let rowBytes = (bitmap.width * bytesPerPixel + 3) & ~3
        let infoSize = alpha ? 108 : 40
        let offset = 14 + infoSize
        let imageSize = rowBytes * bitmap.height
        var out = Data(capacity: offset + imageSize)
        out.append(contentsOf: Array("BM".utf8))
        append(&out, UInt32(truncatingIfNeeded: offset + imageSize), UInt32(0), UInt32(offset))
        append(&out, UInt32(infoSize), Int32(bitmap.width), Int32(bitmap.height), UInt16(1), UInt16(bytesPerPixel * 8),
               UInt32(alpha ? 3 : 0), UInt32(truncatingIfNeeded: imageSize), Int32(2835), Int32(2835), UInt32(0), UInt32(0))
        if alpha {
            // Masks for R, G, B, A in a little-endian BGRA pixel; colour space sRGB; no endpoints,
            // gamma: 36 + 12 bytes of zeros.
            append(&out, UInt32(0x00FF_0000), UInt32(0x0000_FF00), UInt32(0x0000_00FF), UInt32(0xFF00_0000), UInt32(0x7352_4742))
            out.append(contentsOf: [UInt8](repeating: 0, count: 48))
        }
        var row = [UInt8](repeating: 0, count: rowBytes)
        for y in (0..<bitmap.height).reversed() {
            let start = y * bitmap.bytesPerRow
            for x in 0..<bitmap.width {
                let p = start + x * 4, q = x * bytesPerPixel
                row[q] = bitmap.pixels[p + 2]
                row[q + 1] = bitmap.pixels[p + 1]
                row[q + 2] = bitmap.pixels[p]
                if alpha { row[q + 3] = bitmap.pixels[p + 3] }
            }
            out.append(contentsOf: row)
        }
        return out
    }

    /// An icon directory with one entry: `png`, `width` x `height` (at most 256; 0 in the
    /// directory means 256).
    static func ico(png: Data, width: Int, height: Int) -> Data {
        var out = Data(capacity: 22 + png.count)
        append(&out, UInt16(0), UInt16(1), UInt16(1))
        out.append(contentsOf: [UInt8(width % 256), UInt8(height % 256), 0, 0])
        append(&out, UInt16(1), UInt16(32), UInt32(png.count), UInt32(22))
        out.append(png)
        return out
    }

    private static func append<each Value: FixedWidthInteger>(_ out: inout Data, _ values: repeat each Value) {
        for value in repeat each values {
            withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
        }
    }
}

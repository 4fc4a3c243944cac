/// The pixels of a device-independent bitmap whose ``BMPHeader`` was read: rows (bottom-up or
/// top-down) or RLE runs turned into a straight-alpha RGBA ``Bitmap``. Shared by BMP files and
/// the BMP images inside an ICO.
enum BMPPixels {
    /// Decodes the pixels `header` describes. Uncompressed rows must all be in the file (checked
    /// before the bitmap is allocated); RLE data may end early (the rest stays palette colour 0,
    /// as Pillow leaves it).
    static func decode(_ header: BMPHeader, _ bytes: UnsafeRawBufferPointer, format: ImageFormat) throws(ImageCodecError) -> Bitmap {
        let width = header.width, height = header.height
        switch header.compression {
        case .none, .bitFields:
            let (needed, overflow) = header.rowBytes.multipliedReportingOverflow(by: height)
            guard !overflow, needed <= bytes.count - header.pixelOffset else {
                throw .corrupt(format, message: "pixel data is truncated (\(bytes.count - header.pixelOffset) of \(needed) bytes)")
            }
            return Bitmap(width: width, height: height) { out, stride in
                for row in 0..<height {
                    let source = header.pixelOffset + row * header.rowBytes
                    let y = header.topDown ? row : height - 1 - row
                    let target = out.baseAddress.map { $0 + y * stride }
                    guard let target else { return }
                    decodeRow(header, bytes, from: source, into: target)
                }
            }
        case .rle8, .rle4:
            return try decodeRLE(header, bytes, format: format)
        }
    }

    private static func store(_ color: UInt32, _ target: UnsafeMutableRawPointer, _ x: Int) {
        target.storeBytes(of: color.littleEndian, toByteOffset: x * 4, as: UInt32.self)
    }

    /// Colour `index` of the palette (black past its end, as a short palette's missing entries).
    private static func paletteColor(_ header: BMPHeader, _ index: Int) -> UInt32 {
        index < header.palette.count ? header.palette[index] : 0xFF00_0000
    }

    private static func decodeRow(_ header: BMPHeader, _ bytes: UnsafeRawBufferPointer, from start: Int, into target: UnsafeMutableRawPointer) {
        let bits = header.bitCount
        switch bits {
        case 1, 2, 4, 8:
            let perByte = 8 / bits, mask = (1 << bits) - 1
            for x in 0..<header.width {
                let byte = Int(bytes[start + x / perByte])
                let index = (byte >> (8 - bits * (x % perByte + 1))) & mask
                store(paletteColor(header, index), target, x)
            }
        case 24:
            for x in 0..<header.width {
                let p = start + x * 3
                store(UInt32(bytes[p + 2]) | UInt32(bytes[p + 1]) << 8 | UInt32(bytes[p]) << 16 | 0xFF00_0000, target, x)
            }
        default:
            let masks = header.masks
            let size = bits / 8
            for x in 0..<header.width {
                let p = start + x * size
                var pixel = UInt32(bytes[p]) | UInt32(bytes[p + 1]) << 8
                if size == 4 { pixel |= UInt32(bytes[p + 2]) << 16 | UInt32(bytes[p + 3]) << 24 }
                let color = UInt32(masks[0].value(pixel)) | UInt32(masks[1].value(pixel)) << 8 | UInt32(masks[2].value(pixel)) << 16
                    | UInt32(masks[3].value(pixel)) << 24
                store(color, target, x)
            }
        }
    }

    /// RLE8 and RLE4: runs of one index (two alternating ones in RLE4), literal runs padded to
    /// two bytes, end of line, end of bitmap and delta escapes; rows bottom-up.
    private static func decodeRLE(_ header: BMPHeader, _ bytes: UnsafeRawBufferPointer, format: ImageFormat) throws(ImageCodecError) -> Bitmap {
        let width = header.width, height = header.height
        let background = paletteColor(header, 0)
        let four = header.compression == .rle4
        return Bitmap(width: width, height: height) { out, stride in
            guard let base = out.baseAddress else { return }
            for y in 0..<height {
                (base + y * stride).initializeMemory(as: UInt32.self, repeating: background.littleEndian, count: width)
            }
            var x = 0, row = 0, p = header.pixelOffset
            func put(_ index: Int) {
                if x < width, row < height { store(paletteColor(header, index), base + (height - 1 - row) * stride, x) }
                x += 1
            }
            // Each step reads at least two bytes, so the loop ends within the data.
            while p + 1 < bytes.count, row < height {
                let count = Int(bytes[p]), value = Int(bytes[p + 1])
                p += 2
                if count > 0 {
                    for i in 0..<count where x < width { put(four ? (i % 2 == 0 ? value >> 4 : value & 15) : value) }
                    continue
                }
                switch value {
                case 0: x = 0; row += 1
                case 1: return
                case 2:
                    guard p + 1 < bytes.count else { return }
                    x += Int(bytes[p]); row += Int(bytes[p + 1])
                    p += 2
                default:
                    let literalBytes = four ? (value + 1) / 2 : value
                    for i in 0..<value where p + (four ? i / 2 : i) < bytes.count {
                        let byte = Int(bytes[p + (four ? i / 2 : i)])
                        put(four ? (i % 2 == 0 ? byte >> 4 : byte & 15) : byte)
                    }
                    p += (literalBytes + 1) & ~1
                }
            }
        }
    }
}

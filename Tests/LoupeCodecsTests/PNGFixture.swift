import Foundation

/// A PNG written byte by byte for the fast path's tests: chosen colour type, filter per row,
/// IDAT chunk size, palette and tRNS, and hooks to damage the result. The zlib stream is made
/// of stored (uncompressed) deflate blocks, so the rows' filtered bytes are exactly what the
/// test chose, whatever a compressor would have done.
struct PNGFixture {
    var width: Int
    var height: Int
    /// PNG colour type: 0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA.
    var colorType: UInt8
    var bitDepth: UInt8 = 8
    var interlaced = false
    /// The unfiltered samples, `height` rows of `width * channels` bytes.
    var samples: [UInt8]
    /// The filter type of row y is `filters[y % filters.count]` (0...4; anything else is
    /// written as given, for the bad-filter case).
    var filters: [UInt8] = [0, 1, 2, 3, 4]
    /// PLTE entries (RGB triples) for colour type 3.
    var palette: [UInt8] = []
    /// tRNS payload, written as given.
    var transparency: [UInt8]?
    /// Bytes per IDAT chunk (the last one shorter).
    var idatChunkSize = 1 << 20
    /// Bytes per stored deflate block (at most 65535).
    var storedBlockSize = 65535

    static func channels(of colorType: UInt8) -> Int {
        switch colorType {
        case 2: 3
        case 4: 2
        case 6: 4
        default: 1
        }
    }

    /// Deterministic pseudo-random samples (a linear congruential generator), varied enough for
    /// every predictor to be exercised, with smooth stretches so Paeth's ties occur too.
    static func samples(width: Int, height: Int, colorType: UInt8, seed: UInt32 = 1, maximum: Int = 255) -> [UInt8] {
        var state = seed
        let count = width * height * channels(of: colorType)
        return (0..<count).map { i in
            state = state &* 1_664_525 &+ 1_013_904_223
            let value = (i / 7) % 3 == 0 ? (i / 3) % 256 : Int(state >> 24)
            return UInt8(value % (maximum + 1))
        }
    }

    /// The filtered scanlines, each a filter byte and the row's bytes.
    func filteredRows() -> [UInt8] {
        let bpp = Self.channels(of: colorType)
        let rowbytes = width * bpp
        var result: [UInt8] = []
        result.reserveCapacity(height * (rowbytes + 1))
        for y in 0..<height {
            let filter = filters[y % filters.count]
            result.append(filter)
            for i in 0..<rowbytes {
                let x = Int(samples[y * rowbytes + i])
                let a = i >= bpp ? Int(samples[y * rowbytes + i - bpp]) : 0
                let b = y > 0 ? Int(samples[(y - 1) * rowbytes + i]) : 0
                let c = i >= bpp && y > 0 ? Int(samples[(y - 1) * rowbytes + i - bpp]) : 0
                let predicted = switch filter {
                case 1: a
                case 2: b
                case 3: (a + b) / 2
                case 4: Self.paeth(a, b, c)
                default: 0
                }
                result.append(UInt8(truncatingIfNeeded: x - predicted))
            }
        }
        return result
    }

    static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let pa = abs(p - a), pb = abs(p - b), pc = abs(p - c)
        if pa <= pb && pa <= pc { return a }
        return pb <= pc ? b : c
    }

    /// `raw` as a zlib stream of stored blocks.
    func zlib(_ raw: [UInt8]) -> [UInt8] {
        var stream: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let count = min(storedBlockSize, raw.count - offset)
            let final: UInt8 = offset + count == raw.count ? 1 : 0
            stream.append(final)
            stream += [UInt8(count & 0xff), UInt8(count >> 8), UInt8(~count & 0xff), UInt8((~count >> 8) & 0xff)]
            stream += raw[offset..<offset + count]
            offset += count
        } while offset < raw.count
        var s1: UInt32 = 1, s2: UInt32 = 0
        for byte in raw {
            s1 = (s1 + UInt32(byte)) % 65521
            s2 = (s2 + s1) % 65521
        }
        return stream + Self.bigEndian((s2 << 16) | s1)
    }

    /// The IDAT payload: filtered rows, zlib-wrapped.
    func idatData() -> [UInt8] { zlib(filteredRows()) }

    /// The whole file, with `idat` in place of the usual IDAT payload when given and `between`
    /// inserted after the IDAT chunk at that index.
    func png(idat: [UInt8]? = nil, after index: Int = -1, insert between: [UInt8] = []) -> Data {
        var file: [UInt8] = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
        var header = Self.bigEndian(UInt32(width)) + Self.bigEndian(UInt32(height))
        header += [bitDepth, colorType, 0, 0, interlaced ? 1 : 0]
        file += Self.chunk("IHDR", header)
        if !palette.isEmpty { file += Self.chunk("PLTE", palette) }
        if let transparency { file += Self.chunk("tRNS", transparency) }
        let payload = idat ?? idatData()
        var offset = 0, chunkIndex = 0
        repeat {
            let count = min(idatChunkSize, payload.count - offset)
            file += Self.chunk("IDAT", Array(payload[offset..<offset + count]))
            if chunkIndex == index { file += between }
            offset += count
            chunkIndex += 1
        } while offset < payload.count
        file += Self.chunk("IEND", [])
        return Data(file)
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let typeAndData = Array(type.utf8) + data
        return bigEndian(UInt32(data.count)) + typeAndData + bigEndian(crc32(typeAndData))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xff), UInt8((value >> 8) & 0xff), UInt8(value & 0xff)]
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xffff_ffff
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = (crc >> 1) ^ (crc & 1 == 1 ? 0xedb8_8320 : 0) }
        }
        return ~crc
    }
}

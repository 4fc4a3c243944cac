/// A Windows device-independent bitmap's header (BMP files, and the images inside an ICO), read
/// from its bytes alone: size, bit depth, compression, palette, bit masks, where the pixels start.
/// Everything is bounds-checked here, so the pixel reader (``BMPPixels``) only meets a header
/// that describes bytes the file has or declares its own size within the limits.
struct BMPHeader: Sendable, Equatable {
    /// Info header sizes Windows and OS/2 write: core (12), info (40), V2 (52), V3 (56),
    /// OS/2 2.x (16, 64), V4 (108), V5 (124).
    static let infoSizes: Set<Int> = [12, 16, 40, 52, 56, 64, 108, 124]

    enum Compression: Equatable {
        case none
        case rle8
        case rle4
        case bitFields
    }

    struct Mask: Sendable, Equatable {
        let mask: UInt32
        /// The bit the channel starts at, and how many bits it has (0 for an empty mask).
        let shift: Int
        let bits: Int

        init(_ mask: UInt32) {
            self.mask = mask
            shift = mask == 0 ? 0 : mask.trailingZeroBitCount
            let shifted = mask >> UInt32(shift)
            // Contiguous masks only; another is no channel (and refused for R, G, B).
            bits = shifted & (shifted &+ 1) == 0 ? shifted.nonzeroBitCount : 0
        }

        /// The channel of `pixel` scaled to 8 bits (255 for an empty mask: no such channel).
        func value(_ pixel: UInt32) -> UInt8 {
            guard bits > 0 else { return 255 }
            let raw = (pixel & mask) >> UInt32(shift)
            if bits >= 8 { return UInt8(truncatingIfNeeded: raw >> UInt32(bits - 8)) }
            let top = (UInt32(1) << UInt32(bits)) - 1
            return UInt8((raw * 255 + top / 2) / top)
        }
    }

    let width: Int
    let height: Int
    /// Rows stored top first (a negative height in the file) rather than bottom first.
    let topDown: Bool
    let bitCount: Int
    let compression: Compression
    /// Red, green, blue, alpha for 16 and 32 bits (alpha empty when the file has none).
    let masks: [Mask]
    /// The palette as RGBA (opaque), for 1, 2, 4 and 8 bits.
    let palette: [UInt32]
    /// Where the pixel data starts in the bytes the header was read from.
    let pixelOffset: Int

    /// Reads the header at `start` of `bytes`: a BMP file (`fileHeader`: its 14-byte "BM"
    /// header first, whose pixel offset is used) or an ICO image (pixels right after the
    /// palette, height counting the AND mask too, and the fourth byte of 32-bit pixels alpha:
    /// `icon` true).
    init(_ bytes: UnsafeRawBufferPointer, at start: Int, fileHeader: Bool, format: ImageFormat, icon: Bool = false) throws(ImageCodecError) {
        func fail(_ text: String) -> ImageCodecError { .corrupt(format, message: text) }
        func u16(_ offset: Int) throws(ImageCodecError) -> Int {
            guard offset >= 0, offset + 2 <= bytes.count else { throw fail("truncated header") }
            return Int(bytes[offset]) | Int(bytes[offset + 1]) << 8
        }
        func u32(_ offset: Int) throws(ImageCodecError) -> UInt32 {
            guard offset >= 0, offset + 4 <= bytes.count else { throw fail("truncated header") }
            return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
        }
        let info = fileHeader ? start + 14 : start
        let infoSize = Int(try u32(info))
        guard Self.infoSizes.contains(infoSize) else { throw fail("unknown info header size \(infoSize)") }
        let rawWidth: Int, rawHeight: Int, compressionCode: UInt32
        var colorsUsed = 0
        if infoSize == 12 {
            rawWidth = try u16(info + 4)
            rawHeight = Int(Int16(truncatingIfNeeded: try u16(info + 6)))
            bitCount = try u16(info + 10)
            compressionCode = 0
        } else {
            rawWidth = Int(Int32(bitPattern: try u32(info + 4)))
            rawHeight = Int(Int32(bitPattern: try u32(info + 8)))
            bitCount = try u16(info + 14)
            compressionCode = infoSize >= 20 ? try u32(info + 16) : 0
            colorsUsed = infoSize >= 36 ? Int(try u32(info + 32)) : 0
        }
        topDown = rawHeight < 0
        width = rawWidth
        height = abs(rawHeight) / (icon ? 2 : 1)
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        var paletteStart = info + infoSize
        switch (compressionCode, bitCount) {
        case (0, 1), (0, 2), (0, 4), (0, 8), (0, 16), (0, 24), (0, 32): compression = .none
        case (1, 8): compression = .rle8
        case (2, 4): compression = .rle4
        case (3, 16), (3, 32), (6, 16), (6, 32): compression = .bitFields
        default: throw fail("unsupported compression \(compressionCode) at \(bitCount) bits")
        }
        // Bottom-up only: Windows refuses top-down RLE, and its rows could not be skipped by deltas.
        guard !(topDown && (compression == .rle8 || compression == .rle4)) else { throw fail("top-down RLE") }
        if compression == .bitFields {
            // An info header of 40 bytes keeps its masks after it (three, or four with alpha);
            // larger ones inside.
            let maskStart = info + 40
            let count = compressionCode == 6 || infoSize >= 56 ? 4 : 3
            var values: [UInt32] = []
            for index in 0..<count { values.append(try u32(maskStart + 4 * index)) }
            if count == 3 { values.append(0) }
            masks = values.map(Mask.init)
            guard masks.prefix(3).allSatisfy({ $0.bits > 0 }) else { throw fail("invalid bit masks") }
            if infoSize == 40 { paletteStart += 4 * (count == 4 && compressionCode == 6 ? 4 : 3) }
        } else if bitCount == 16 {
            masks = [0x7C00, 0x03E0, 0x001F, 0].map(Mask.init)
        } else if bitCount == 32 || bitCount == 24 {
            // 32-bit BI_RGB leaves the fourth byte unused in a BMP file, as Windows and Pillow
            // read it; in an icon it is the alpha.
            masks = [0xFF0000, 0xFF00, 0xFF, icon && bitCount == 32 ? 0xFF00_0000 : 0].map(Mask.init)
        } else {
            masks = []
        }
        if bitCount <= 8 {
            let entrySize = infoSize == 12 ? 3 : 4
            let count = colorsUsed > 0 && colorsUsed <= 1 << bitCount ? colorsUsed : 1 << bitCount
            var colors: [UInt32] = []
            colors.reserveCapacity(count)
            for index in 0..<count {
                let offset = paletteStart + index * entrySize
                // Short palettes happen (writers that count fewer colours than they use); the
                // missing entries are black.
                guard offset + 3 <= bytes.count else { break }
                colors.append(UInt32(bytes[offset + 2]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset]) << 16 | 0xFF00_0000)
            }
            guard !colors.isEmpty else { throw fail("missing palette") }
            palette = colors
            paletteStart += count * entrySize
        } else {
            palette = []
        }
        if fileHeader {
            pixelOffset = start + Int(try u32(start + 10))
        } else {
            pixelOffset = paletteStart
        }
        guard pixelOffset >= 0, pixelOffset <= bytes.count else { throw fail("pixel data outside the file") }
    }

    /// Bytes per stored row of uncompressed pixels: bits rounded up to a multiple of 32.
    var rowBytes: Int { ((width * bitCount + 31) / 32) * 4 }
}

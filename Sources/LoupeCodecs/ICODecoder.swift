import Foundation

/// Decodes Windows icons (ICO): the directory's largest image (by area, then bit depth), which is
/// a PNG (decoded by ``PNGDecoder``) or a bitmap without its file header whose transparency is
/// its alpha (32 bits) or the 1-bit AND mask after it. The size checked against the limits is
/// the chosen image's own header's, not the directory's one-byte sides, which a file can
/// contradict.
public struct ICODecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        let entry = try Self.largestEntry(data)
        if let png = entry.png {
            var metadata = try PNGDecoder().metadata(of: png)
            metadata.format = .ico
            return metadata
        }
        return try data.withUnsafeBytes { raw in
            let header = try BMPHeader(raw, at: entry.offset, fileHeader: false, format: .ico, icon: true)
            return ImageMetadata(format: .ico, width: header.width, height: header.height)
        }
    }

    public var format: ImageFormat { .ico }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        let entry = try Self.largestEntry(data)
        if let png = entry.png {
            var image = try PNGDecoder().decode(png, options: options) { metadata, options in
                var metadata = metadata
                metadata.format = .ico
                try afterHeader(metadata, &options)
            }
            image.metadata.format = .ico
            return image
        }
        return try data.withUnsafeBytes { raw in
            let header = try BMPHeader(raw, at: entry.offset, fileHeader: false, format: .ico, icon: true)
            let metadata = ImageMetadata(format: .ico, width: header.width, height: header.height)
            _ = try options.decided(for: metadata, by: afterHeader)
            var bitmap = try BMPPixels.decode(header, raw, format: .ico)
            if header.bitCount < 32 { Self.applyANDMask(header, raw, to: &bitmap) }
            return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap))
        }
    }

    /// The chosen image: its offset, and its bytes when it is a PNG.
    struct Entry {
        let offset: Int
        let png: Data?
    }

    static func largestEntry(_ data: Data) throws(ImageCodecError) -> Entry {
        let bytes = [UInt8](data.prefix(6 + 16 * 256))
        func u16(_ offset: Int) -> Int { Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 }
        func u32(_ offset: Int) -> Int { u16(offset) | u16(offset + 2) << 16 }
        guard bytes.count >= 6, u16(0) == 0, u16(2) == 1 else { throw .corrupt(.ico, message: "not an icon directory") }
        let count = u16(4)
        guard count > 0, bytes.count >= 6 + 16 * min(count, 256) else { throw .corrupt(.ico, message: "truncated icon directory") }
        var best: (area: Int, bits: Int, offset: Int, size: Int)?
        // At most 256 entries are looked at: no icon has more sizes than that.
        for index in 0..<min(count, 256) {
            let entry = 6 + 16 * index
            let width = bytes[entry] == 0 ? 256 : Int(bytes[entry]), height = bytes[entry + 1] == 0 ? 256 : Int(bytes[entry + 1])
            let bits = u16(entry + 6), size = u32(entry + 8), offset = u32(entry + 12)
            guard offset < data.count, size > 0 else { continue }
            if let current = best, (current.area, current.bits) >= (width * height, bits) { continue }
            best = (width * height, bits, offset, min(size, data.count - offset))
        }
        guard let best else { throw .corrupt(.ico, message: "no image in the icon directory") }
        let start = data.startIndex + best.offset
        let slice = data[start..<start + best.size]
        if slice.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return Entry(offset: best.offset, png: Data(slice)) }
        return Entry(offset: best.offset, png: nil)
    }

    /// Clears the pixels the AND mask (1 bit a pixel, rows padded to 4 bytes, bottom-up after
    /// the colour rows) marks transparent; an icon whose mask is missing stays opaque.
    private static func applyANDMask(_ header: BMPHeader, _ bytes: UnsafeRawBufferPointer, to bitmap: inout Bitmap) {
        let maskRow = ((header.width + 31) / 32) * 4
        let start = header.pixelOffset + header.rowBytes * header.height
        guard start + maskRow * header.height <= bytes.count else { return }
        let width = header.width, height = header.height
        bitmap.withUnsafeMutablePixels { pixels, stride in
            for row in 0..<height {
                let y = header.topDown ? row : height - 1 - row
                for x in 0..<width where bytes[start + row * maskRow + x / 8] & (0x80 >> UInt8(x % 8)) != 0 {
                    pixels[y * stride + x * 4 + 3] = 0
                }
            }
        }
    }
}

/// The encoded formats LoupeCodecs reads; ``isWritable`` tells which it writes (all but SVG;
/// WebP and GIF animated too).
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case jpeg
    case png
    case webp
    case gif
    /// HEIF with HEVC images (HEIC), as phones write them.
    case heif
    /// AVIF: AV1 images in a HEIF container.
    case avif
    /// JPEG XL, bare codestream or ISO BMFF container.
    case jxl
    /// TIFF (and BigTIFF), read and written with libtiff; the first image of a multi-page file.
    case tiff
    /// Windows bitmap (BMP): uncompressed, RLE and bit-field variants.
    case bmp
    /// Windows icon (ICO): a directory of BMP or PNG images; the largest is read.
    case ico
    /// SVG, rendered with librsvg; never written (an SVG result is the source's document,
    /// sanitised: ``SVGSanitizer``).
    case svg

    /// Identifies the format from the leading bytes (magic numbers; for SVG, XML whose root
    /// element is `svg`, within ``svgSniffingLimit`` bytes) alone: never from a file name or
    /// Content-Type, which lie. Returns nil for anything else.
    public init?<Bytes: Collection<UInt8>>(sniffing bytes: Bytes) {
        // 64 bytes: a HEIF ftyp box lists its compatible brands after the major one.
        let head = Array(bytes.prefix(64))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            head.count >= offset + signature.count && Array(head[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            self = .jxl
        } else if starts(Array("II".utf8)) && (starts([42, 0], at: 2) || starts([43, 0], at: 2))
                    || starts(Array("MM".utf8)) && (starts([0, 42], at: 2) || starts([0, 43], at: 2)) {
            self = .tiff
        } else if starts(Array("BM".utf8)) && head.count >= 18 && BMPHeader.infoSizes.contains(Int(head[14]) | Int(head[15]) << 8)
                    && head[16] == 0 && head[17] == 0 {
            // "BM" alone is two bytes: the info header's size (one of the known ones) at 14 too.
            self = .bmp
        } else if starts([0, 0, 1, 0]) && head.count >= 6 && (head[4] != 0 || head[5] != 0) {
            self = .ico
        } else if let format = ImageFormat(ftyp: head) {
            self = format
        } else if Self.mayBeMarkup(head) && SVGMarkup.rootIsSVG(Array(bytes.prefix(Self.svgSniffingLimit))) {
            self = .svg
        } else {
            return nil
        }
    }

    public var description: String { rawValue.uppercased() }

    /// The bytes sniffing reads for an SVG document's root element: an XML declaration,
    /// comments and a DOCTYPE before it may take this many; a document whose `<svg` comes
    /// later is not taken as SVG.
    public static let svgSniffingLimit = 65_536

    /// Whether the first byte that is not white space (after a UTF-8 byte order mark) is `<`,
    /// or the head is all white space: the only bytes worth reading as XML.
    private static func mayBeMarkup(_ head: [UInt8]) -> Bool {
        let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        guard let first = body.first(where: { !SVGMarkup.isSpace($0) }) else { return !body.isEmpty }
        return first == UInt8(ascii: "<")
    }

    /// AVIF or HEIF from an ISO BMFF `ftyp` box: its major brand, else the first image brand
    /// among the compatible ones (files with major brand `mif1` list `avif` or `heic` there).
    private init?(ftyp head: [UInt8]) {
        guard head.count >= 16, Array(head[4..<8]) == Array("ftyp".utf8) else { return nil }
        let size = Int(head[0]) << 24 | Int(head[1]) << 16 | Int(head[2]) << 8 | Int(head[3])
        var brands = [String(decoding: head[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= min(size, head.count) {
            brands.append(String(decoding: head[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        for brand in brands {
            switch brand {
            case "avif", "avis": self = .avif; return
            case "heic", "heix", "heim", "heis", "hevc", "hevx": self = .heif; return
            default: continue
            }
        }
        return nil
    }
}

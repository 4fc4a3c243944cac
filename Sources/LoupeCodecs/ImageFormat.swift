/// The encoded formats LoupeCodecs reads and (except GIF) writes.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case jpeg
    case png
    case webp
    case gif

    /// Identifies the format from the leading bytes (magic numbers) alone: never from a file
    /// name or Content-Type, which lie. Returns nil for anything else.
    public init?<Bytes: Collection<UInt8>>(sniffing bytes: Bytes) {
        let head = Array(bytes.prefix(12))
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
        } else {
            return nil
        }
    }

    public var description: String { rawValue.uppercased() }
}

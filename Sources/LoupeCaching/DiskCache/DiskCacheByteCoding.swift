import Foundation

/// Little-endian binary writer for the disk cache's journal records and entry trailers.
///
/// Binary, not text: opening a cache replays its whole journal, and decoding fixed-width
/// fields is what keeps a 100,000-entry open inside its time budget.
struct DiskCacheByteWriter {
    private(set) var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    mutating func append(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Dates travel as the bit pattern of their seconds since 1970, so they round-trip exactly.
    mutating func append(_ date: Date) {
        append(date.timeIntervalSince1970.bitPattern)
    }

    /// `nil` is encoded as NaN, which no real date produces.
    mutating func append(optional date: Date?) {
        append((date?.timeIntervalSince1970 ?? .nan).bitPattern)
    }

    mutating func append(_ string: String) {
        var copy = string
        copy.withUTF8 { utf8 in
            append(UInt32(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// `nil` is encoded as length `UInt32.max`, distinct from an empty string.
    mutating func append(optional string: String?) {
        if let string { append(string) } else { append(UInt32.max) }
    }

    mutating func append(optional data: Data?) {
        guard let data else { return append(UInt32.max) }
        append(UInt32(data.count))
        bytes.append(contentsOf: data)
    }

    /// Overwrites four bytes written earlier (used to back-fill a record length).
    mutating func patch(_ value: UInt32, at offset: Int) {
        withUnsafeBytes(of: value.littleEndian) { raw in
            for index in 0..<4 { bytes[offset + index] = raw[index] }
        }
    }
}

/// Bounds-checked reader matching `DiskCacheByteWriter`: every read returns `nil` instead of
/// trapping when the input is short or malformed, because the input is a file on disk that a
/// crash or another program may have damaged.
struct DiskCacheByteReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    mutating func readUInt8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func readUInt32() -> UInt32? {
        guard remaining >= 4 else { return nil }
        defer { offset += 4 }
        return UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    mutating func readUInt64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { offset += 8 }
        return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    mutating func readDate() -> Date? {
        guard let bits = readUInt64() else { return nil }
        let seconds = Double(bitPattern: bits)
        return seconds.isFinite ? Date(timeIntervalSince1970: seconds) : nil
    }

    /// Returns `.some(nil)` for an encoded `nil`, and `nil` when the input is malformed.
    mutating func readOptionalDate() -> Date?? {
        guard let bits = readUInt64() else { return nil }
        let seconds = Double(bitPattern: bits)
        if seconds.isNaN { return .some(nil) }
        return seconds.isFinite ? .some(Date(timeIntervalSince1970: seconds)) : nil
    }

    mutating func readString() -> String? {
        guard let count = readUInt32(), count != UInt32.max, let raw = readRaw(Int(count)) else { return nil }
        return String(decoding: raw, as: UTF8.self)
    }

    mutating func readOptionalString() -> String?? {
        guard let count = readUInt32() else { return nil }
        if count == UInt32.max { return .some(nil) }
        guard let raw = readRaw(Int(count)) else { return nil }
        return .some(String(decoding: raw, as: UTF8.self))
    }

    mutating func readOptionalData() -> Data?? {
        guard let count = readUInt32() else { return nil }
        if count == UInt32.max { return .some(nil) }
        guard let raw = readRaw(Int(count)) else { return nil }
        return .some(Data(raw))
    }

    mutating func readRaw(_ count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, remaining >= count else { return nil }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
    }
}

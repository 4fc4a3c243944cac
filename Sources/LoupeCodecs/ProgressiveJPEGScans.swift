import Foundation

/// Where the complete scans of a progressive JPEG end in bytes still arriving: fed the body so
/// far after each chunk, it reads only the bytes it has not read, and tells whether the data is a
/// progressive JPEG at all (decided from the start-of-frame marker, so a baseline JPEG or any
/// other format is given up on within its header) and how long a prefix holds how many complete
/// scans.
///
/// Scans are found by their start-of-scan markers (`FFDA`), never by searching the header's
/// segments, which are skipped by their lengths (an EXIF thumbnail is a whole JPEG inside an
/// `APP1` segment, markers included). Inside entropy-coded data a `FF` byte is stuffed (`FF00`)
/// or a restart marker (`FFD0`–`FFD7`), so the first other marker ends the scan. A scan is
/// complete once the next scan's marker has arrived: the prefix before that marker, ended by
/// the decoder's implied end of image, decodes to every scan in it.
package struct ProgressiveJPEGScans: Sendable {
    /// What the bytes read so far are.
    package enum Kind: Sendable, Equatable {
        /// Not known yet: the start-of-frame marker has not arrived.
        case undetermined
        /// A progressive JPEG (`SOF2`, or `SOF10` with arithmetic coding).
        case progressive
        /// Anything else: a baseline or lossless JPEG, another format, or bytes that break
        /// JPEG's marker structure. Final: nothing more is read.
        case notProgressive
    }

    /// What the bytes are, as far as they tell.
    package private(set) var kind = Kind.undetermined
    /// Complete scans in the first ``decodableLength`` bytes.
    package private(set) var completeScans = 0
    /// The length of the prefix holding ``completeScans`` scans: it ends where the next scan's
    /// marker starts.
    package private(set) var decodableLength = 0
    /// Whether the end-of-image marker was read: the whole image has arrived, and is decoded
    /// as the image, not as a preview.
    package private(set) var isEnded = false

    /// The next byte to read.
    private var offset = 0
    /// Whether `offset` is inside a scan's entropy-coded data rather than between segments.
    private var inEntropyData = false
    /// Scans whose start has been read.
    private var startedScans = 0
    /// The body's length at the last read.
    private var received = 0

    /// A reader at the start of the data.
    package init() {}

    /// Reads what `data` holds past what was read before. `data` is the whole body so far; one
    /// that is shorter than what was read (a download started over) starts the reading over.
    package mutating func advance(over data: Data) {
        guard kind != .notProgressive, !isEnded else { return }
        if data.count < received { self = ProgressiveJPEGScans() }
        received = data.count
        data.withUnsafeBytes { bytes in
            // Bounded: every turn moves `offset` forward or returns.
            while offset < bytes.count, kind != .notProgressive, !isEnded {
                let moved = inEntropyData ? skipEntropyData(bytes) : readSegment(bytes)
                if !moved { return }
            }
        }
    }

    /// Moves past entropy-coded data to the next marker; `false` when the bytes end first.
    private mutating func skipEntropyData(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var index = offset
        while index < bytes.count {
            guard let found = memchr(base + index, 0xFF, bytes.count - index) else {
                index = bytes.count
                break
            }
            index = base.distance(to: UnsafeRawPointer(found))
            guard index + 1 < bytes.count else { break }
            let next = bytes[index + 1]
            if next == 0x00 || (0xD0...0xD7).contains(next) {
                index += 2
            } else if next == 0xFF {
                index += 1
            } else {
                offset = index
                inEntropyData = false
                return true
            }
        }
        let moved = index > offset
        offset = index
        return moved
    }

    /// Reads the marker at `offset` and moves past its segment; `false` when the bytes end first.
    private mutating func readSegment(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if offset == 0 {
            guard bytes.count >= 2 else { return false }
            guard bytes[0] == 0xFF, bytes[1] == 0xD8 else { return giveUp() }
            offset = 2
            return true
        }
        guard bytes[offset] == 0xFF else { return giveUp() }
        guard offset + 1 < bytes.count else { return false }
        let marker = bytes[offset + 1]
        switch marker {
        case 0xFF:
            // A fill byte before the marker.
            offset += 1
            return true
        case 0xD0...0xD7, 0x01:
            offset += 2
            return true
        case 0xD9:
            // The end of the image: the whole file decodes now, as the image, not a preview.
            isEnded = true
            return false
        case 0xD8, 0x00:
            return giveUp()
        default:
            break
        }
        guard offset + 3 < bytes.count else { return false }
        let length = Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
        guard length >= 2 else { return giveUp() }
        switch marker {
        case 0xC2, 0xCA:
            kind = .progressive
        case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9, 0xCB, 0xCD...0xCF:
            return giveUp()
        case 0xDA:
            guard kind == .progressive else { return giveUp() }
            if startedScans > 0 {
                completeScans = startedScans
                decodableLength = offset
            }
            startedScans += 1
            inEntropyData = true
        default:
            break
        }
        // The segment's bytes need not have arrived: the next read starts past them.
        offset += 2 + length
        return true
    }

    private mutating func giveUp() -> Bool {
        kind = .notProgressive
        return false
    }
}

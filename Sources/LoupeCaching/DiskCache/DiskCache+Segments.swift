import Foundation

/// The segment files of a disk cache: which one an append goes to, their lengths while appends
/// are in flight, retiring the empty ones, and their names.
extension DiskCache {
    /// The segment an append of about `bytes` bytes goes to (starting a new one when the
    /// current is full or gone), counted as appending until `endAppend`.
    func beginAppend(_ state: inout State, bytes: Int) throws(DiskCacheError) -> (UInt64, DiskCacheSegment) {
        if let number = state.current, let segment = state.segments[number], state.currentBytes < configuration.segmentSize {
            state.currentBytes += bytes
            state.appending[number, default: 0] += 1
            return (number, segment)
        }
        if let number = state.current { state.segments[number]?.releaseReserve() }
        let number = state.nextSegment
        let path = segmentPath(number)
        let segment: DiskCacheSegment
        do throws(DiskCacheFileSystem.Failure) {
            segment = try DiskCacheSegment(path: path)
        } catch {
            throw .fromErrno(error.errno, operation: "open", path: path)
        }
        state.nextSegment += 1
        state.segments[number] = segment
        state.segmentLengths[number] = 0
        state.current = number
        state.currentBytes = bytes
        state.appending[number, default: 0] += 1
        return (number, segment)
    }

    /// Ends an append begun by `beginAppend`; `end` is where the appended entry ends (`nil`:
    /// it failed and was cut back).
    func endAppend(_ state: inout State, segment number: UInt64, end: Int?) {
        let remaining = (state.appending[number] ?? 1) - 1
        state.appending[number] = remaining > 0 ? remaining : nil
        guard let end, let length = state.segmentLengths[number], end > length else { return }
        state.segmentLengths[number] = end
        state.segmentBytes += end - length
    }

    /// Forgets the segments that hold no live entry and no append in flight (the current one
    /// too, when it is empty of live entries and appends) and returns their paths, to be
    /// deleted once the journal no longer points into them.
    func retireEmptySegments(_ state: inout State) -> [String] {
        var paths: [String] = []
        for (number, segment) in state.segments where state.index.liveBytes[number] == nil && state.appending[number] == nil {
            if state.current == number {
                // An empty current segment is kept for the next append.
                guard (state.segmentLengths[number] ?? 0) > 0 else { continue }
                state.current = nil
            }
            state.segments[number] = nil
            state.segmentBytes -= state.segmentLengths.removeValue(forKey: number) ?? 0
            paths.append(segment.path)
        }
        return paths
    }

    func segmentPath(_ number: UInt64) -> String {
        Self.path(prefix: segmentsPrefix, number: number)
    }

    /// The name of segment `number`: 16 lowercase hex digits.
    static func fileName(_ number: UInt64) -> String {
        path(prefix: [], number: number)
    }

    /// `prefix` followed by the file name, built in one allocation.
    private static func path(prefix: [UInt8], number: UInt64) -> String {
        String(unsafeUninitializedCapacity: prefix.count + 16) { buffer in
            var end = buffer.initialize(fromContentsOf: prefix)
            var remaining = number
            end += 16
            for index in stride(from: end - 1, through: end - 16, by: -1) {
                let digit = UInt8(truncatingIfNeeded: remaining & 0xF)
                buffer[index] = digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
                remaining >>= 4
            }
            return end
        }
    }

    /// The number of a file the cache wrote (`<16 hex>`, or `<16 hex>.tmp` in the previous
    /// layout's `entries/`), or `nil` for any other name — those files are not the cache's and
    /// are left alone.
    static func parseFileName(_ name: UnsafeBufferPointer<UInt8>) -> (number: UInt64, isTemporary: Bool)? {
        let isTemporary = name.count == 20 && name[16] == UInt8(ascii: ".") && name[17] == UInt8(ascii: "t")
            && name[18] == UInt8(ascii: "m") && name[19] == UInt8(ascii: "p")
        guard name.count == 16 || isTemporary else { return nil }
        var number: UInt64 = 0
        for byte in name[0..<16] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            number = number << 4 | UInt64(digit)
        }
        return (number, isTemporary)
    }

    static func parseFileName(_ name: String) -> (number: UInt64, isTemporary: Bool)? {
        var name = name
        return name.withUTF8 { parseFileName($0) }
    }
}

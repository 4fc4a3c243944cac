import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// Finding a progressive JPEG's complete scans in bytes as they arrive, on files libjpeg-turbo
/// wrote (a corpus photo encoded progressive and baseline), and giving up early on the rest.
@Suite struct ProgressiveJPEGScansTests {
    /// The reader fed `data` in pieces of `chunk` bytes, as a download hands it over.
    /// Returns the reader at the end, the scan counts it went through and the prefix lengths it
    /// gave for them.
    static func read(_ data: Data, chunk: Int) -> (reader: ProgressiveJPEGScans, scansSeen: [Int], lengths: [Int]) {
        var reader = ProgressiveJPEGScans()
        var seen: [Int] = [], lengths: [Int] = []
        for end in stride(from: chunk, through: data.count + chunk - 1, by: chunk) {
            reader.advance(over: data.prefix(min(end, data.count)))
            if seen.last != reader.completeScans {
                seen.append(reader.completeScans)
                lengths.append(reader.decodableLength)
            }
        }
        return (reader, seen, lengths)
    }

    @Test func aProgressiveJPEGsScansCompleteOneByOneAndEachPrefixDecodes() throws {
        let data = try TestImage.photoJPEG(progressive: true)
        // libjpeg's simple progression writes ten scans for a colour image; the last is complete
        // only with the end of the image, which ends the reading instead.
        // Byte by byte: the most a download can split a marker.
        let (reader, seen, lengths) = Self.read(data, chunk: 1)
        #expect(reader.kind == .progressive)
        #expect(reader.isEnded)
        #expect(reader.completeScans == 9)
        #expect(seen == Array(0...9), "every scan is found, in order: \(seen)")
        #expect(Array(lengths.dropFirst()) == lengths.dropFirst().sorted() && lengths.first == 0)

        // Each scan boundary is a prefix that decodes to the full size, without error.
        for length in lengths.dropFirst() {
            #expect(data[data.startIndex + length] == 0xFF && data[data.startIndex + length + 1] == 0xDA, "a prefix ends at a scan's marker")
            let decoded = try JPEGDecoder().decode(data.prefix(length), options: DecodingOptions())
            #expect(decoded.bitmap.width == 640 && decoded.bitmap.height == 427)
        }
    }

    @Test func aBaselineJPEGIsGivenUpOnAtItsFrameHeader() throws {
        let data = try TestImage.photoJPEG(progressive: false)
        var reader = ProgressiveJPEGScans()
        reader.advance(over: data.prefix(1024))
        #expect(reader.kind == .notProgressive)
        reader.advance(over: data)
        #expect(reader.completeScans == 0 && reader.decodableLength == 0)
    }

    @Test func otherFormatsAndBrokenMarkersAreGivenUpOn() throws {
        var png = ProgressiveJPEGScans()
        png.advance(over: try TestImage.png(width: 8, height: 8))
        #expect(png.kind == .notProgressive)

        // A segment length under 2 breaks JPEG's structure.
        var broken = ProgressiveJPEGScans()
        broken.advance(over: Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01, 0x00, 0x00]))
        #expect(broken.kind == .notProgressive)

        // A byte that is not a marker where one must be.
        var stray = ProgressiveJPEGScans()
        stray.advance(over: Data([0xFF, 0xD8, 0x12, 0x34]))
        #expect(stray.kind == .notProgressive)

        // Too few bytes to tell: undetermined, and more bytes decide.
        var short = ProgressiveJPEGScans()
        short.advance(over: Data([0xFF]))
        #expect(short.kind == .undetermined)
    }

    /// A start-of-scan marker inside a header segment (an EXIF thumbnail is a whole JPEG) is
    /// skipped with its segment, not counted.
    @Test func markersInsideSegmentsAreSkipped() throws {
        let data = try TestImage.photoJPEG(progressive: true)
        let thumbnail = try TestImage.photoJPEG(progressive: true, quality: 20)
        let payload = Data("Exif\0\0".utf8) + thumbnail.prefix(1_000)
        let app1 = Data([0xFF, 0xE1, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)]) + payload
        let withSegment = data.prefix(2) + app1 + data.dropFirst(2)
        let (reader, seen, _) = Self.read(withSegment, chunk: 4096)
        #expect(reader.kind == .progressive && reader.completeScans == 9)
        #expect(seen == seen.sorted() && seen.last == 9)
    }

    /// A download that starts over hands a shorter body: the reading starts over with it.
    @Test func aShorterBodyStartsTheReadingOver() throws {
        let data = try TestImage.photoJPEG(progressive: true)
        var reader = ProgressiveJPEGScans()
        reader.advance(over: data.prefix(data.count * 3 / 4))
        let scans = reader.completeScans
        #expect(scans > 0)
        reader.advance(over: data.prefix(600))
        #expect(reader.completeScans == 0 && reader.kind == .progressive)
        reader.advance(over: data.prefix(data.count * 3 / 4))
        #expect(reader.completeScans == scans)
    }
}

import CLoupeCodecs
import Foundation
import Testing
@testable import LoupeCodecs

/// A PNG chunk's declared length is not an allocation: libpng allocates a chunk's length
/// before reading it, so a 3 KB file declaring a 2 GB zTXt (a fuzzer's find), sPLT or pCAL
/// took 2 GB of memory. The shim's allocator caps what libpng may ask for, and the chunks
/// nothing reads are skipped unread.
@Suite struct PNGChunkLimitTests {
    /// Grey 16×16, then `type` declaring `declared` bytes with only 3,000 present.
    private static func file(declaring declared: UInt32, in type: String) -> [UInt8] {
        let header = PNGFixture.bigEndian(16) + PNGFixture.bigEndian(16) + [8, 0, 0, 0, 0]
        var chunk = PNGFixture.chunk(type, Array(repeating: UInt8(ascii: "x"), count: 3_000))
        chunk.replaceSubrange(0..<4, with: PNGFixture.bigEndian(declared))
        return [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + PNGFixture.chunk("IHDR", header) + chunk
    }

    /// Reads the header as `PNGDecoder` does; the largest allocation libpng made, and whether
    /// the header read succeeded.
    private static func readHeader(_ bytes: [UInt8]) throws -> (largest: Int, succeeded: Bool) {
        try bytes.withUnsafeBufferPointer { buffer in
            let base = try #require(buffer.baseAddress)
            let png = try #require(lc_png_create(base, buffer.count))
            defer { lc_png_destroy(png) }
            var header = lc_png_header()
            let status = lc_png_read_header(png, &header)
            return (Int(lc_png_largest_allocation(png)), status == LC_OK)
        }
    }

    static let chunkTypes = [
        "zTXt", "tEXt", "iTXt", "sPLT", "pCAL", "sCAL", "hIST", "bKGD", "eXIf", "iCCP", "tIME", "pHYs", "sBIT", "oFFs",
        "tRNS", "gAMA", "cHRM", "sRGB", "PLTE", "abCd",
    ]

    @Test(arguments: chunkTypes)
    func aDeclaredTwoGigabyteChunkAllocatesNothingLikeIt(type: String) throws {
        let read = try Self.readHeader(Self.file(declaring: 2_128_412_816, in: type))
        // The file ends inside the chunk: no header read may succeed on it.
        #expect(!read.succeeded)
        #expect(read.largest < 1 << 20, "\(type): libpng allocated \(read.largest) bytes")
    }

    /// The same files through the decoder: a typed error, nothing else.
    @Test(arguments: chunkTypes)
    func theDecoderReportsTheTruncatedChunk(type: String) {
        let data = Data(Self.file(declaring: 2_128_412_816, in: type))
        #expect(throws: ImageCodecError.self) { try PNGDecoder().decode(data, options: DecodingOptions()) }
    }

    /// Skipping the unused chunks loses nothing that is used: a file with every one of them
    /// before its pixels still decodes to the same pixels.
    @Test func skippedChunksDoNotChangeThePixels() throws {
        var fixture = PNGFixture(width: 7, height: 5, colorType: 2, samples: PNGFixture.samples(width: 7, height: 5, colorType: 2))
        fixture.filters = [4]
        let plain = fixture.png()
        var extra: [UInt8] = []
        for type in ["tEXt", "zTXt", "iTXt", "pHYs", "tIME", "bKGD", "sBIT"] {
            extra += PNGFixture.chunk(type, Array("Comment\u{0}text".utf8))
        }
        // After IHDR (8 + 25 bytes), before IDAT.
        var bytes = [UInt8](plain)
        bytes.insert(contentsOf: extra, at: 33)
        let expected = try PNGDecoder().decode(plain, options: DecodingOptions()).firstFrame.bitmap
        let decoded = try PNGDecoder().decode(Data(bytes), options: DecodingOptions()).firstFrame.bitmap
        #expect(decoded == expected)
    }
}

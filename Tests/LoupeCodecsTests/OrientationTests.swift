import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

@Suite struct OrientationTests {
    /// A 3x2 bitmap whose pixels are the letters a...f (in the red channel), row by row.
    private func letters() throws -> Bitmap {
        let pixels: [UInt8] = Array("abcdef".utf8).flatMap { letter -> [UInt8] in [letter, 0, 0, 255] }
        return try Bitmap(width: 3, height: 2, pixels: pixels)
    }

    private func rows(_ bitmap: Bitmap) -> String {
        (0..<bitmap.height).map { y in
            String(decoding: (0..<bitmap.width).map { bitmap.pixel(x: $0, y: y).r }, as: UTF8.self)
        }.joined(separator: "/")
    }

    /// Expected upright pictures from the EXIF specification's definitions of tags 1...8.
    @Test(arguments: [
        (ExifOrientation.up, "abc/def"), (.upMirrored, "cba/fed"), (.down, "fed/cba"), (.downMirrored, "def/abc"),
        (.leftMirrored, "ad/be/cf"), (.right, "da/eb/fc"), (.rightMirrored, "fc/eb/da"), (.left, "cf/be/ad"),
    ])
    func appliesEachOrientation(orientation: ExifOrientation, expected: String) throws {
        #expect(rows(orientation.apply(to: try letters())) == expected)
    }

    private func tiff(littleEndian: Bool, orientation: UInt16) -> [UInt8] {
        func u16(_ v: UInt16) -> [UInt8] { littleEndian ? [UInt8(v & 0xFF), UInt8(v >> 8)] : [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func u32(_ v: UInt32) -> [UInt8] { littleEndian ? u16(UInt16(v & 0xFFFF)) + u16(UInt16(v >> 16)) : u16(UInt16(v >> 16)) + u16(UInt16(v & 0xFFFF)) }
        let order: [UInt8] = littleEndian ? [0x49, 0x49] : [0x4D, 0x4D]
        // Header, IFD at 8 with two entries: ImageWidth (ignored), then Orientation.
        return order + u16(42) + u32(8) + u16(2)
            + u16(0x0100) + u16(3) + u32(1) + u16(640) + u16(0)
            + u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
            + u32(0)
    }

    @Test func readsOrientationInBothByteOrders() {
        for little in [true, false] {
            let bytes = tiff(littleEndian: little, orientation: 6)
            #expect(bytes.withUnsafeBytes { ExifOrientation(exif: $0) } == .right)
        }
    }

    @Test func malformedExifFallsBackToUp() {
        var bytes = tiff(littleEndian: true, orientation: 9)
        #expect(bytes.withUnsafeBytes { ExifOrientation(exif: $0) } == .up)
        bytes = Array(tiff(littleEndian: true, orientation: 3).prefix(20))  // cut inside the IFD
        #expect(bytes.withUnsafeBytes { ExifOrientation(exif: $0) } == .up)
        bytes = [0x49, 0x49, 42, 0, 0xFF, 0xFF, 0xFF, 0x7F]  // IFD offset far past the end
        #expect(bytes.withUnsafeBytes { ExifOrientation(exif: $0) } == .up)
    }

    /// gdk-pixbuf's rotation test photo (orientation tag 6) and its upright reference.
    @Test func appliesExifOrientationOfARealPhoto() throws {
        let stored = try decodeCorpus("gdk-pixbuf/bug725582-testrotate.jpg")
        #expect(stored.metadata.orientation == .right)
        #expect(stored.bitmap.width == 640 && stored.bitmap.height == 428)
        let upright = try decodeCorpus("gdk-pixbuf/bug725582-testrotate.jpg", options: DecodingOptions(appliesOrientation: true))
        #expect(upright.bitmap.width == 428 && upright.bitmap.height == 640)
        let reference = try decodeCorpus("gdk-pixbuf/bug725582-testrotate.png")
        let difference = PixelDifference(upright.bitmap, reference.bitmap)
        #expect(difference.mean < 2, "mean error \(difference.mean)")
    }
}

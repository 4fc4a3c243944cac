import Foundation

/// The smallest TIFF, BMP and ICO files whose header declares `width` x `height` (pixel data
/// absent): decompression bombs, for the decoders' and the service's limit tests.
package enum LegacyBombs {
    package static func tiff(width: UInt32, height: UInt32) -> Data {
        var bytes: [UInt8] = Array("II".utf8) + [42, 0, 8, 0, 0, 0]
        let entries: [(tag: UInt16, type: UInt16, value: UInt32)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, 200), (277, 3, 1),
            (278, 4, height), (279, 4, width),
        ]
        bytes += le(UInt16(entries.count))
        for entry in entries { bytes += le(entry.tag) + le(entry.type) + le(UInt32(1)) + le(entry.value) }
        bytes += le(UInt32(0))
        return Data(bytes + [UInt8](repeating: 0, count: 64))
    }

    package static func bmp(width: Int32, height: Int32) -> Data {
        let info = dib(width: width, height: height)
        return Data(Array("BM".utf8) + le(UInt32(54)) + le(UInt32(0)) + le(UInt32(54)) + info)
    }

    package static func ico(width: Int32, height: Int32) -> Data {
        let image = dib(width: width, height: height * 2)
        return Data(le(UInt16(0)) + le(UInt16(1)) + le(UInt16(1)) + [0, 0, 0, 0] + le(UInt16(1)) + le(UInt16(24))
                    + le(UInt32(image.count)) + le(UInt32(22)) + image)
    }

    private static func dib(width: Int32, height: Int32) -> [UInt8] {
        le(UInt32(40)) + le(UInt32(bitPattern: width)) + le(UInt32(bitPattern: height)) + le(UInt16(1)) + le(UInt16(24))
            + [UInt8](repeating: 0, count: 24)
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// The EXIF orientation tag (0x0112): how the stored pixels must be transformed to show the
/// picture upright. Raw values are the tag's values 1...8.
public enum ExifOrientation: Int, Sendable, CaseIterable {
    /// 1: stored upright.
    case up = 1
    /// 2: mirrored left-right.
    case upMirrored = 2
    /// 3: rotated 180°.
    case down = 3
    /// 4: mirrored top-bottom.
    case downMirrored = 4
    /// 5: mirrored along the top-left/bottom-right diagonal (transpose).
    case leftMirrored = 5
    /// 6: must be rotated 90° clockwise to display.
    case right = 6
    /// 7: mirrored along the top-right/bottom-left diagonal (transverse).
    case rightMirrored = 7
    /// 8: must be rotated 90° counter-clockwise to display.
    case left = 8

    /// Whether width and height swap when the orientation is applied.
    public var swapsDimensions: Bool { rawValue >= 5 }

    /// Reads the orientation from a TIFF-structured EXIF block (starting at the "II"/"MM" byte
    /// order mark). Returns `.up` for a missing tag and for malformed data: a bad EXIF block
    /// must not make an otherwise good image fail.
    init(exif: UnsafeRawBufferPointer) {
        self = .up
        guard exif.count >= 8 else { return }
        let little: Bool
        switch (exif[0], exif[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= exif.count else { return nil }
            let a = Int(exif[at]), b = Int(exif[at + 1])
            return little ? a | b << 8 : a << 8 | b
        }
        func u32(_ at: Int) -> Int? {
            guard let low = u16(little ? at : at + 2), let high = u16(little ? at + 2 : at) else { return nil }
            return low | high << 16
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return }
        for entry in 0..<count {
            let at = ifd + 2 + entry * 12
            guard let tag = u16(at) else { return }
            guard tag == 0x0112, let type = u16(at + 2) else { continue }
            // The spec says SHORT (3), whose value sits in the first two bytes of the value
            // field; some cameras (Panasonic) write LONG (4) or SLONG (9) instead.
            let value = type == 3 ? u16(at + 8) : (type == 4 || type == 9) ? u32(at + 8) : nil
            self = value.flatMap(ExifOrientation.init(rawValue:)) ?? .up
            return
        }
    }

    /// Returns `bitmap` transformed so it displays upright.
    public func apply(to bitmap: Bitmap) -> Bitmap {
        if self == .up { return bitmap }
        let sourceWidth = bitmap.width, sourceHeight = bitmap.height
        let width = swapsDimensions ? sourceHeight : sourceWidth
        let height = swapsDimensions ? sourceWidth : sourceHeight
        let oriented = bitmap.pixels.withUnsafeBytes { source in
            Bitmap(width: width, height: height) { out, stride in
                for y in 0..<height {
                    for x in 0..<width {
                        // (sx, sy): the stored pixel that lands at displayed (x, y).
                        let (sx, sy): (Int, Int) = switch self {
                        case .up: (x, y)
                        case .upMirrored: (sourceWidth - 1 - x, y)
                        case .down: (sourceWidth - 1 - x, sourceHeight - 1 - y)
                        case .downMirrored: (x, sourceHeight - 1 - y)
                        case .leftMirrored: (y, x)
                        case .right: (y, sourceHeight - 1 - x)
                        case .rightMirrored: (sourceWidth - 1 - y, sourceHeight - 1 - x)
                        case .left: (sourceWidth - 1 - y, x)
                        }
                        let value = source.loadUnaligned(fromByteOffset: sy * bitmap.bytesPerRow + sx * 4, as: UInt32.self)
                        out.storeBytes(of: value, toByteOffset: y * stride + x * 4, as: UInt32.self)
                    }
                }
            }
        }
        // The same pixels moved: opaque stays opaque.
        return bitmap.isKnownOpaque ? oriented.knownOpaque() : oriented
    }
}

/// A decoded raster: RGBA, 8 bits per channel (and 16 beside them: ``deepSamples``), **straight (non-premultiplied) alpha**, rows
/// top to bottom at `bytesPerRow` bytes each.
///
/// Straight alpha because every decoder here produces it (libpng, libwebp's `MODE_RGBA`,
/// GIF palettes, JPEG is opaque), the encoders consume it, and colour analysis
/// (ColorThief-compatible MMCQ) reads it; a resizer premultiplies internally and converts back.
/// A value type over an array, so it is `Sendable` and copies only when mutated.
public struct Bitmap: Sendable, Equatable {
    /// Bytes per pixel: R, G, B, A in that order.
    public static let bytesPerPixel = 4

    /// Width in pixels (at least 1).
    public let width: Int
    /// Height in pixels (at least 1).
    public let height: Int
    /// Distance in bytes between the starts of two rows; at least `width * 4`.
    public let bytesPerRow: Int
    /// The pixel bytes, `bytesPerRow * height` of them.
    public private(set) var pixels: [UInt8]
    /// The same pixels at 16 bits per channel (RGBA, tightly packed, `width * 4` samples a row),
    /// when the image has them and a step asked to keep them (``DecodingOptions/keepsDeepSamples``);
    /// `pixels` is then their rounding to 8 bits. Any bitmap made from `pixels` alone has none,
    /// so a step without a 16-bit implementation gives an 8-bit result
    /// (``init(width:height:deepSamples:)``).
    public private(set) var deepSamples: [UInt16]?
    /// Every alpha is 255, known without reading the pixels: what the JPEG decoder and a resize
    /// of an opaque bitmap make (``knownOpaque()``), so that ``hasTransparency`` answers at once
    /// rather than reading every pixel again. `false` says nothing: the pixels are then read.
    package private(set) var isKnownOpaque = false

    /// Wraps existing RGBA bytes, checking that the geometry fits them.
    public init(width: Int, height: Int, bytesPerRow: Int? = nil, pixels: [UInt8]) throws(ImageCodecError) {
        let stride = bytesPerRow ?? width &* Bitmap.bytesPerPixel
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (rowBytes, rowOverflow) = width.multipliedReportingOverflow(by: Bitmap.bytesPerPixel)
        let (total, totalOverflow) = stride.multipliedReportingOverflow(by: height)
        guard !rowOverflow, !totalOverflow, stride >= rowBytes, pixels.count >= total else {
            throw .invalidBitmap("\(pixels.count) bytes cannot hold \(width)x\(height) pixels at \(stride) bytes per row")
        }
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.pixels = pixels
    }

    /// Wraps 16-bit RGBA samples (straight alpha, tightly packed, `width * height * 4` of them),
    /// keeping them as ``deepSamples`` and rounding them once to the 8-bit `pixels` every step
    /// without a 16-bit implementation reads.
    public init(width: Int, height: Int, deepSamples: [UInt16]) throws(ImageCodecError) {
        guard width > 0, height > 0 else { throw .invalidDimensions(width: width, height: height) }
        let (samples, overflow) = width.multipliedReportingOverflow(by: height * Bitmap.bytesPerPixel)
        guard !overflow, height <= Int.max / Bitmap.bytesPerPixel, deepSamples.count == samples else {
            throw .invalidBitmap("\(deepSamples.count) samples cannot hold \(width)x\(height) pixels at 16 bits per channel")
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: samples) { buffer, count in
            deepSamples.withUnsafeBufferPointer { deep in
                for i in 0..<samples { buffer[i] = Bitmap.eightBit(deep[i]) }
            }
            count = samples
        }
        try self.init(width: width, height: height, pixels: bytes)
        self.deepSamples = deepSamples
    }

    /// Allocates a tightly packed bitmap and lets `fill` write every byte (the buffer is not
    /// zeroed first: decoders overwrite all of it). Callers have already checked the size limits.
    init(width: Int, height: Int, fill: (UnsafeMutableRawBufferPointer, _ bytesPerRow: Int) throws -> Void) rethrows {
        let stride = width * Bitmap.bytesPerPixel
        self.width = width
        self.height = height
        self.bytesPerRow = stride
        self.pixels = try [UInt8](unsafeUninitializedCapacity: stride * height) { buffer, count in
            // UInt8 is trivial, so bytes left unwritten by a throwing `fill` need no cleanup.
            try fill(UnsafeMutableRawBufferPointer(buffer), stride)
            count = stride * height
        }
    }

    /// Lets `body` rewrite the pixel bytes in place (copying them first only if shared);
    /// `keepingAlpha` when `body` writes colours only, so a bitmap known opaque stays known.
    mutating func withUnsafeMutablePixels(keepingAlpha: Bool = false, _ body: (UnsafeMutableRawBufferPointer, _ bytesPerRow: Int) -> Void) {
        let stride = bytesPerRow
        // Rewritten 8-bit pixels no longer match the deep ones.
        deepSamples = nil
        if !keepingAlpha { isKnownOpaque = false }
        pixels.withUnsafeMutableBytes { body($0, stride) }
    }

    /// The pixel at column `x`, row `y` as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = y * bytesPerRow + x * Bitmap.bytesPerPixel
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// The same bitmap, marked as known to be opaque: for a step that can only write alpha 255.
    package func knownOpaque() -> Bitmap {
        var bitmap = self
        bitmap.isKnownOpaque = true
        return bitmap
    }

    /// Equal pixels (and deep samples), whether or not either is known to be opaque.
    public static func == (lhs: Bitmap, rhs: Bitmap) -> Bool {
        lhs.width == rhs.width && lhs.height == rhs.height && lhs.bytesPerRow == rhs.bytesPerRow
            && lhs.pixels == rhs.pixels && lhs.deepSamples == rhs.deepSamples
    }

    /// Whether any pixel is not fully opaque.
    public var hasTransparency: Bool {
        if isKnownOpaque { return false }
        // Four bytes (one pixel) at a time, alphas AND-ed over a row and tested once per row:
        // the loop vectorizes. Checked indexing byte by byte made this scan 1.4% of the CPU of
        // a `loupe serve` request (which asks it of every result it encodes as JPEG).
        return pixels.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return false }
            for y in 0..<height {
                let row = start + y &* bytesPerRow
                var all: UInt32 = 0xFFFF_FFFF
                for x in 0..<width {
                    all &= row.loadUnaligned(fromByteOffset: x &* 4, as: UInt32.self)
                }
                // Alpha is the fourth byte: the high byte of a little-endian word.
                if UInt32(littleEndian: all) >> 24 != 0xFF { return true }
            }
            return false
        }
    }

    /// Whether every pixel is grey (R = G = B, whatever its alpha): what a grey source stays
    /// through processing that adds no colour, so that an encoder can write it as grey.
    public var isGrey: Bool {
        pixels.withUnsafeBytes { raw in
            guard let start = raw.baseAddress else { return true }
            for y in 0..<height {
                let row = start + y &* bytesPerRow
                // Differences OR-ed over a row and tested once per row, so the loop vectorizes.
                var differences: UInt8 = 0
                for x in 0..<width {
                    let pixel = row + x &* 4
                    let r = pixel.load(as: UInt8.self), g = pixel.load(fromByteOffset: 1, as: UInt8.self)
                    let b = pixel.load(fromByteOffset: 2, as: UInt8.self)
                    differences |= (r ^ g) | (r ^ b)
                }
                if differences != 0 { return false }
            }
            return true
        }
    }
}

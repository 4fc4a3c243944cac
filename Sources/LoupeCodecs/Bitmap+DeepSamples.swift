extension Bitmap {
    /// The bytes the bitmap holds: its 8-bit pixels and its 16-bit samples, if any (for the
    /// memory budget).
    public var byteCount: Int { pixels.count + (deepSamples?.count ?? 0) * 2 }

    /// The nearest 8-bit value of a 16-bit sample (`v * 255 / 65535`, rounded), libpng's scaling.
    @inline(__always)
    public static func eightBit(_ value: UInt16) -> UInt8 { UInt8((UInt32(value) * 255 + 32767) / 65535) }

    /// The 16-bit sample an 8-bit one stands for (`v * 257`: 0 to 0, 255 to 65535).
    @inline(__always)
    public static func sixteenBit(_ value: UInt8) -> UInt16 { UInt16(value) &* 257 }

    /// The pixels at 16 bits per channel: ``deepSamples`` when there are, else `pixels` widened.
    /// For a 16-bit step that combines this bitmap with a deep one (a watermark over a deep image).
    public var widenedSamples: [UInt16] {
        if let deepSamples { return deepSamples }
        var samples = [UInt16](repeating: 0, count: width * height * Bitmap.bytesPerPixel)
        let rowSamples = width * Bitmap.bytesPerPixel
        pixels.withUnsafeBufferPointer { bytes in
            for y in 0..<height {
                for x in 0..<rowSamples { samples[y * rowSamples + x] = Bitmap.sixteenBit(bytes[y * bytesPerRow + x]) }
            }
        }
        return samples
    }

    /// Whether every deep pixel is grey (R = G = B), so that a 16-bit result can be written as
    /// grey without losing anything; false without ``deepSamples``.
    public var isDeepGrey: Bool {
        guard let deepSamples else { return false }
        return deepSamples.withUnsafeBufferPointer { samples in
            var differences: UInt16 = 0
            var i = 0
            while i + 3 < samples.count {
                differences |= (samples[i] ^ samples[i + 1]) | (samples[i] ^ samples[i + 2])
                i += 4
            }
            return differences == 0
        }
    }

    /// Whether any deep pixel is not fully opaque.
    public var hasDeepTransparency: Bool {
        guard let deepSamples else { return hasTransparency }
        return deepSamples.withUnsafeBufferPointer { samples in
            var all: UInt16 = 0xFFFF
            var i = 3
            while i < samples.count {
                all &= samples[i]
                i += 4
            }
            return all != 0xFFFF
        }
    }
}

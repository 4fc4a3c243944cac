#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// Rows of 8-bit RGBA to and from `SIMD4<Float>` pixels (channels 0...255), as the resampler
/// reads and writes them.
///
/// Reading premultiplies (colour times alpha / 255; an opaque row is read as it is). Writing
/// clamps each channel to 0...255 and rounds half up, as `UInt8(min(max(value, 0), 255) + 0.5)`.
///
/// Swift's generic conversions between `SIMD4<Float>` and integer vectors call a function per
/// lane, and the scalar conversion checks every channel for a trap: storing a resized row cost
/// nearly as much as filtering it. On x86-64 four pixels at a time go through SSE2 (baseline on
/// every x86-64 CPU) with the same operations in the same order, so every byte and every float
/// is the scalar formulas' to the bit; `FloatPixelsTests` holds the two paths to that.
/// Elsewhere the scalar formulas run.
enum FloatPixels {
    /// Reads `out.count` pixels of `source` (four bytes a pixel) into `out`, premultiplied; with
    /// `opaque`, every alpha is read as 255 and the colours as they are (multiplying by
    /// 255 / 255 is exact, so this is the premultiplied reading without its multiplication).
    static func load(_ source: UnsafeBufferPointer<UInt8>, opaque: Bool, into out: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        // A programming error, not input: every caller sizes both from the same width.
        precondition(source.count >= out.count * 4, "four bytes a pixel")
        #if arch(x86_64)
        loadVectors(source, opaque: opaque, into: out)
        #else
        loadScalars(source, opaque: opaque, into: out)
        #endif
    }

    /// Rounds `pixels` into `out`, four bytes a pixel in RGBA order; with `opaque`, every alpha
    /// is stored as 255 whatever its lane holds (an opaque source's accumulated alpha is 255
    /// give or take the weights' rounding).
    static func store(_ pixels: UnsafeBufferPointer<SIMD4<Float>>, opaque: Bool, into out: UnsafeMutableBufferPointer<UInt8>) {
        precondition(out.count >= pixels.count * 4, "four bytes a pixel")
        #if arch(x86_64)
        storeVectors(pixels, opaque: opaque, into: out)
        #else
        storeScalars(pixels, opaque: opaque, into: out)
        #endif
    }

    /// `load` one channel at a time.
    static func loadScalars(_ source: UnsafeBufferPointer<UInt8>, opaque: Bool, into out: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        for index in out.indices {
            let at = index &* 4
            let bytes = SIMD4<UInt8>(source[at], source[at &+ 1], source[at &+ 2], 255)
            out[index] = opaque ? SIMD4<Float>(bytes) : SIMD4<Float>(bytes) * (Float(source[at &+ 3]) / 255)
        }
    }

    /// `store` one channel at a time.
    static func storeScalars(_ pixels: UnsafeBufferPointer<SIMD4<Float>>, opaque: Bool, into out: UnsafeMutableBufferPointer<UInt8>) {
        for (index, pixel) in pixels.enumerated() {
            let at = index &* 4
            out[at] = byte(pixel.x); out[at &+ 1] = byte(pixel.y); out[at &+ 2] = byte(pixel.z)
            out[at &+ 3] = opaque ? 255 : byte(pixel.w)
        }
    }

    /// One channel clamped to 0...255 and rounded half up.
    @inline(__always)
    static func byte(_ value: Float) -> UInt8 { UInt8(min(max(value, 0), 255) + 0.5) }

    #if arch(x86_64)
    private static func loadVectors(_ source: UnsafeBufferPointer<UInt8>, opaque: Bool, into buffer: UnsafeMutableBufferPointer<SIMD4<Float>>) {
        guard let bytes = source.baseAddress, let out = buffer.baseAddress else { return }
        let count = buffer.count
        // Unrolled for each value of `opaque`, so the loop holds no branch on it.
        if opaque {
            loadVectors(bytes, count: count, into: out) { colour, _ in colour }
        } else {
            let scale = _mm_set1_ps(255)
            loadVectors(bytes, count: count, into: out) { colour, integers in
                // The pixel's alpha in every lane: [r g b a] → [b b a a] → [a a a a].
                let high = _mm_unpackhi_epi32(integers, integers)
                return _mm_mul_ps(colour, _mm_div_ps(_mm_cvtepi32_ps(_mm_unpackhi_epi64(high, high)), scale))
            }
        }
    }

    /// Widens four pixels at a time to 32-bit lanes and gives `premultiplied` each one's
    /// conversion with alpha 255 beside its integers (with the source's alpha).
    @inline(__always)
    private static func loadVectors(_ bytes: UnsafePointer<UInt8>, count: Int, into out: UnsafeMutablePointer<SIMD4<Float>>,
                                    premultiplied: (SIMD4<Float>, __m128i) -> SIMD4<Float>) {
        let zero = _mm_setzero_si128(), opaqueAlpha = _mm_set_epi32(255, 0, 0, 0)
        @inline(__always) func pixel(_ integers: __m128i) -> SIMD4<Float> {
            premultiplied(_mm_cvtepi32_ps(_mm_or_si128(integers, opaqueAlpha)), integers)
        }
        var index = 0
        while index &+ 4 <= count {
            let four = _mm_loadu_si128(UnsafeRawPointer(bytes + index &* 4).assumingMemoryBound(to: __m128i.self))
            let low = _mm_unpacklo_epi8(four, zero), high = _mm_unpackhi_epi8(four, zero)
            out[index] = pixel(_mm_unpacklo_epi16(low, zero))
            out[index &+ 1] = pixel(_mm_unpackhi_epi16(low, zero))
            out[index &+ 2] = pixel(_mm_unpacklo_epi16(high, zero))
            out[index &+ 3] = pixel(_mm_unpackhi_epi16(high, zero))
            index &+= 4
        }
        while index < count {
            let word = UnsafeRawPointer(bytes + index &* 4).loadUnaligned(as: UInt32.self)
            out[index] = pixel(_mm_unpacklo_epi16(_mm_unpacklo_epi8(_mm_cvtsi32_si128(Int32(bitPattern: word)), zero), zero))
            index &+= 1
        }
    }

    private static func storeVectors(_ pixels: UnsafeBufferPointer<SIMD4<Float>>, opaque: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>) {
        guard let source = pixels.baseAddress, let out = buffer.baseAddress else { return }
        let zero = _mm_setzero_ps(), top = _mm_set1_ps(255), half = _mm_set1_ps(0.5)
        let alphaMask = opaque ? _mm_set1_epi32(Int32(bitPattern: 0xFF00_0000)) : _mm_setzero_si128()
        // maxps answers its second operand when the first is NaN, so a NaN channel comes out 0
        // (the scalar formula would trap on it); the filters never make one. Truncating a value
        // in 0.5...255.5 is taking its floor, as the scalar conversion does.
        @inline(__always) func integers(_ pixel: SIMD4<Float>) -> __m128i {
            _mm_cvttps_epi32(_mm_add_ps(_mm_min_ps(_mm_max_ps(pixel, zero), top), half))
        }
        var index = 0
        while index &+ 4 <= pixels.count {
            let low = _mm_packs_epi32(integers(source[index]), integers(source[index &+ 1]))
            let high = _mm_packs_epi32(integers(source[index &+ 2]), integers(source[index &+ 3]))
            let bytes = _mm_or_si128(_mm_packus_epi16(low, high), alphaMask)
            _mm_storeu_si128(UnsafeMutableRawPointer(out + index &* 4).assumingMemoryBound(to: __m128i.self), bytes)
            index &+= 4
        }
        while index < pixels.count {
            let one = _mm_packs_epi32(integers(source[index]), _mm_setzero_si128())
            let bytes = _mm_or_si128(_mm_packus_epi16(one, one), alphaMask)
            UnsafeMutableRawPointer(out + index &* 4).storeBytes(of: UInt32(bitPattern: _mm_cvtsi128_si32(bytes)), as: UInt32.self)
            index &+= 1
        }
    }
    #endif
}

import Testing
import LoupeTestSupport
@testable import LoupeProcessing

/// `FloatPixels` reads and writes rows through SSE2 on x86-64 and one channel at a time
/// elsewhere: the two must agree to the bit, or a resize would differ between machines.
@Suite struct FloatPixelsTests {
    /// Lengths around the four-pixel blocks: none, tails alone, blocks alone, both.
    static let lengths = [0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 64, 257]

    @Test(arguments: [true, false])
    func loadingMatchesTheScalarFormula(opaque: Bool) {
        var generator = SplitMix64(seed: opaque ? 7 : 8)
        for count in Self.lengths {
            let bytes = (0..<count * 4).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let (vector, scalar) = bytes.withUnsafeBufferPointer { source in
                (Self.floats(count) { FloatPixels.load(source, opaque: opaque, into: $0) },
                 Self.floats(count) { FloatPixels.loadScalars(source, opaque: opaque, into: $0) })
            }
            #expect(vector.map(\.bitPatterns) == scalar.map(\.bitPatterns), "\(count) pixels")
        }
    }

    @Test func loadingPremultipliesAndOpaqueReadsAlphaAs255() {
        let bytes: [UInt8] = [200, 100, 50, 128, 10, 20, 30, 0, 255, 255, 255, 255, 1, 2, 3, 51, 90, 80, 70, 255]
        let premultiplied = bytes.withUnsafeBufferPointer { source in Self.floats(5) { FloatPixels.load(source, opaque: false, into: $0) } }
        #expect(premultiplied[0] == SIMD4<Float>(200, 100, 50, 255) * (128 / 255))
        #expect(premultiplied[1] == .zero)
        #expect(premultiplied[2] == SIMD4<Float>(255, 255, 255, 255))
        #expect(premultiplied[3] == SIMD4<Float>(1, 2, 3, 255) * (51 / 255))
        #expect(premultiplied[4] == SIMD4<Float>(90, 80, 70, 255))
        let opaque = bytes.withUnsafeBufferPointer { source in Self.floats(5) { FloatPixels.load(source, opaque: true, into: $0) } }
        #expect(opaque[0] == SIMD4<Float>(200, 100, 50, 255))
        #expect(opaque[1] == SIMD4<Float>(10, 20, 30, 255))
    }

    @Test(arguments: [true, false])
    func storingMatchesTheScalarFormula(opaque: Bool) {
        var generator = SplitMix64(seed: opaque ? 9 : 10)
        // Ties, values either side of them, the ends of the range and beyond it.
        let edges: [Float] = [0, -0.0, 0.5, 0.49999997, 0.50000006, 127.5, 128.5, 254.5, 254.49998, 255, 255.49998, 255.5, 256,
                              -1, -0.5, -1e9, 1e9, .infinity, -.infinity, .leastNonzeroMagnitude, 3.0000002]
        for count in Self.lengths {
            let pixels = (0..<count).map { _ in
                SIMD4<Float>((0..<4).map { _ in
                    Bool.random(using: &generator) ? edges.randomElement(using: &generator) ?? 0 : Float.random(in: -20...275, using: &generator)
                })
            }
            let (vector, scalar) = pixels.withUnsafeBufferPointer { pixels in
                (Self.bytes(count) { FloatPixels.store(pixels, opaque: opaque, into: $0) },
                 Self.bytes(count) { FloatPixels.storeScalars(pixels, opaque: opaque, into: $0) })
            }
            #expect(vector == scalar, "\(count) pixels")
        }
    }

    @Test func storingClampsAndRoundsHalfUp() {
        let pixels: [SIMD4<Float>] = [[-3, 0.49, 0.5, 300], [127.5, 128.49, 254.5, 255.4], [1, 2, 3, 0], [10.5, 11.5, 12.5, 13.5], [7, 8, 9, 10]]
        let straight = pixels.withUnsafeBufferPointer { pixels in Self.bytes(5) { FloatPixels.store(pixels, opaque: false, into: $0) } }
        #expect(straight == [0, 0, 1, 255, 128, 128, 255, 255, 1, 2, 3, 0, 11, 12, 13, 14, 7, 8, 9, 10])
        let opaque = pixels.withUnsafeBufferPointer { pixels in Self.bytes(5) { FloatPixels.store(pixels, opaque: true, into: $0) } }
        #expect(opaque == [0, 0, 1, 255, 128, 128, 255, 255, 1, 2, 3, 255, 11, 12, 13, 255, 7, 8, 9, 255])
    }

    private static func floats(_ count: Int, _ fill: (UnsafeMutableBufferPointer<SIMD4<Float>>) -> Void) -> [SIMD4<Float>] {
        var out = [SIMD4<Float>](repeating: SIMD4(repeating: -1), count: count)
        out.withUnsafeMutableBufferPointer { fill($0) }
        return out
    }

    private static func bytes(_ count: Int, _ fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> [UInt8] {
        var out = [UInt8](repeating: 0xAB, count: count * 4)
        out.withUnsafeMutableBufferPointer { fill($0) }
        return out
    }
}

private extension SIMD4<Float> {
    var bitPatterns: SIMD4<UInt32> { SIMD4<UInt32>(x.bitPattern, y.bitPattern, z.bitPattern, w.bitPattern) }
}

import LoupeCodecs
import LoupeProcessing
import Testing

/// The steps with a 16-bit implementation (resize, crop, extend, flatten, watermark) keep a
/// bitmap's `deepSamples` and their precision; a step without one gives an 8-bit result; the
/// 8-bit pixels stay the rounding of the 16-bit samples throughout.
@Suite struct DeepSampleProcessingTests {
    /// `width`×`height` pixels of one colour.
    static func flat(_ pixel: [UInt16], width: Int = 30, height: Int = 20) throws -> Bitmap {
        try Bitmap(width: width, height: height, deepSamples: [UInt16]((0..<width * height).flatMap { _ in pixel }))
    }

    static func pixel(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> [UInt16] {
        guard let samples = bitmap.deepSamples else { return [] }
        let at = (y * bitmap.width + x) * 4
        return Array(samples[at..<at + 4])
    }

    static func roundsConsistently(_ bitmap: Bitmap) -> Bool {
        bitmap.deepSamples.map { $0.map(Bitmap.eightBit) == bitmap.pixels } ?? false
    }

    @Test func resizesKeepSixteenBitValues() throws {
        let source = try Self.flat([1000, 30001, 50003, 65535])
        for resize in [ImageProcessors.Resize(width: 12, height: 9, mode: .exact, allowsUpscaling: true) as any ImageProcessing,
                       ImageProcessors.Resize(width: 70, height: 50, mode: .fill, allowsUpscaling: true),
                       ImageProcessors.RegionResize(x: 3.5, y: 2, width: 20, height: 12.5, outputWidth: 17, outputHeight: 11)] {
            let result = try resize.process(source)
            #expect(Self.pixel(result, result.width / 2, result.height / 2) == [1000, 30001, 50003, 65535], "\(resize.identifier)")
            #expect(Self.roundsConsistently(result))
        }
        // A ramp keeps its order and values between the 8-bit steps.
        let ramp = try Bitmap(width: 64, height: 4, deepSamples: (0..<64 * 4).flatMap { index -> [UInt16] in
            let value = UInt16((index % 64) * 1000 + 5)
            return [value, value, value, 65535]
        })
        let halved = try ImageProcessors.Resize(width: 32, height: 2, mode: .exact, allowsUpscaling: true).process(ramp)
        let row = (0..<32).map { Self.pixel(halved, $0, 1)[0] }
        #expect(zip(row, row.dropFirst()).allSatisfy { $0 < $1 })
        #expect(row.contains { $0 % 257 != 0 })
    }

    @Test func cropExtendFlattenAndWatermarkKeepSixteenBits() throws {
        let source = try Self.flat([1000, 1000, 1000, 30000])
        let cropped = try ImageProcessors.Crop(x: 5, y: 5, width: 10, height: 8).process(source)
        #expect((cropped.width, cropped.height) == (10, 8) && Self.pixel(cropped, 9, 7) == [1000, 1000, 1000, 30000])
        let extended = try ImageProcessors.Extend(width: 40, height: 30, x: 5, y: 5, fill: (255, 0, 0, 255)).process(source)
        #expect(Self.pixel(extended, 0, 0) == [65535, 0, 0, 65535])
        #expect(Self.pixel(extended, 10, 10) == [1000, 1000, 1000, 30000])
        let flattened = try ImageProcessors.Flatten(background: RGBColor(red: 0, green: 0, blue: 0)).process(source)
        // 1000 × 30000 / 65535, rounded: 458, which no 8-bit value widens to.
        #expect(Self.pixel(flattened, 3, 3) == [458, 458, 458, 65535])
        let mark = try Bitmap(width: 4, height: 4, pixels: [UInt8]((0..<16).flatMap { _ in [255, 255, 255, 255] as [UInt8] }))
        let marked = try ImageProcessors.Watermark(mark: mark, markIdentity: "white", opacity: 0.5, position: .northWest).process(flattened)
        // Half white over 458: (65535 × 128/255 + 458 × (1 − 128/255)) rounded.
        let share: Double = 128.0 / 255.0
        let expected = UInt16((65535.0 * share + 458.0 * (1 - share)).rounded())
        #expect(Self.pixel(marked, 1, 1) == [expected, expected, expected, 65535])
        #expect(Self.pixel(marked, 10, 10) == [458, 458, 458, 65535])
        for result in [cropped, extended, flattened, marked] { #expect(Self.roundsConsistently(result)) }
    }

    @Test func stepsWithoutASixteenBitImplementationGiveEightBits() throws {
        let source = try Self.flat([1000, 30001, 50003, 65535])
        let turned = try ImageProcessors.RotateFlip(degrees: 90, flipHorizontal: false, flipVertical: false).process(source)
        #expect(turned.deepSamples == nil)
        #expect(turned.pixel(x: 0, y: 0) == source.pixel(x: 0, y: 0))
    }
}

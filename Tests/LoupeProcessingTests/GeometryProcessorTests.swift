import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// The frame and orientation processors imgproxy's geometry needs, checked on pixels.
@Suite struct GeometryProcessorTests {
    /// A `width`×`height` image whose every pixel names its place: red = x, green = y.
    static func coordinates(width: Int, height: Int) throws -> Bitmap {
        var pixels: [UInt8] = []
        for y in 0..<height { for x in 0..<width { pixels += [UInt8(x), UInt8(y), 7, 255] } }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    static func place(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> (Int, Int) {
        let p = bitmap.pixel(x: x, y: y)
        return (Int(p.r), Int(p.g))
    }

    @Test func extendPlacesTheImageOnATransparentCanvas() throws {
        let image = try Self.coordinates(width: 4, height: 3)
        let result = try ImageProcessors.Extend(width: 8, height: 5, x: 3, y: 1).process(image)
        #expect((result.width, result.height) == (8, 5))
        #expect(result.pixel(x: 0, y: 0) == (0, 0, 0, 0))
        #expect(result.pixel(x: 2, y: 1).a == 0 && result.pixel(x: 7, y: 4).a == 0)
        #expect(Self.place(result, 3, 1) == (0, 0))
        #expect(Self.place(result, 6, 3) == (3, 2))
        #expect(result.pixel(x: 6, y: 3).a == 255)
        let red = try ImageProcessors.Extend(width: 6, height: 3, x: 1, y: 0, fill: (255, 0, 0, 255)).process(image)
        #expect(red.pixel(x: 0, y: 2) == (255, 0, 0, 255) && red.pixel(x: 5, y: 0) == (255, 0, 0, 255))
    }

    @Test func extendCutsWhatFallsOutside() throws {
        let image = try Self.coordinates(width: 4, height: 4)
        let shifted = try ImageProcessors.Extend(width: 3, height: 3, x: -2, y: -1).process(image)
        #expect(Self.place(shifted, 0, 0) == (2, 1))
        #expect(Self.place(shifted, 1, 2) == (3, 3))
        #expect(shifted.pixel(x: 2, y: 0).a == 0)
        let missed = try ImageProcessors.Extend(width: 3, height: 3, x: Int.min, y: Int.max).process(image)
        #expect(missed.pixels.allSatisfy { $0 == 0 })
        #expect(throws: ProcessingError.self) { try ImageProcessors.Extend(width: 1 << 20, height: 1 << 20, x: 0, y: 0).process(image) }
        #expect(throws: ProcessingError.self) { try ImageProcessors.Extend(width: 0, height: 3, x: 0, y: 0).process(image) }
    }

    @Test func rotationsAreClockwise() throws {
        let image = try Self.coordinates(width: 3, height: 2)
        let quarter = try ImageProcessors.RotateFlip(degrees: 90).process(image)
        #expect((quarter.width, quarter.height) == (2, 3))
        // Clockwise: the bottom-left corner comes to the top left.
        #expect(Self.place(quarter, 0, 0) == (0, 1))
        #expect(Self.place(quarter, 1, 0) == (0, 0))
        let half = try ImageProcessors.RotateFlip(degrees: 180).process(image)
        #expect(Self.place(half, 0, 0) == (2, 1))
        let three = try ImageProcessors.RotateFlip(degrees: 270).process(image)
        #expect(Self.place(three, 0, 0) == (2, 0))
        #expect(try ImageProcessors.RotateFlip(degrees: -90).process(image) == three)
        #expect(try ImageProcessors.RotateFlip(degrees: 360).process(image) == image)
    }

    @Test func flipsMirrorAfterTheRotation() throws {
        let image = try Self.coordinates(width: 3, height: 2)
        let horizontal = try ImageProcessors.RotateFlip(degrees: 0, flipHorizontal: true).process(image)
        #expect(Self.place(horizontal, 0, 0) == (2, 0))
        let vertical = try ImageProcessors.RotateFlip(degrees: 0, flipVertical: true).process(image)
        #expect(Self.place(vertical, 0, 0) == (0, 1))
        let both = try ImageProcessors.RotateFlip(degrees: 90, flipHorizontal: true).process(image)
        #expect(both == (try ImageProcessors.RotateFlip(degrees: 0, flipHorizontal: true).process(try ImageProcessors.RotateFlip(degrees: 90).process(image))))
        #expect(Self.place(both, 0, 0) == (0, 0))
    }

    /// A white image with a grey block from (3, 2) to (6, 4); `corner` paints the top-left pixel.
    static func framed(corner: (UInt8, UInt8, UInt8, UInt8)? = nil, alpha: UInt8 = 255) throws -> Bitmap {
        var pixels: [UInt8] = []
        for y in 0..<8 {
            for x in 0..<10 {
                if (3...6).contains(x), (2...4).contains(y) { pixels += [100, 100, 100, 255] } else { pixels += [255, 255, 255, alpha] }
            }
        }
        if let corner { pixels[0] = corner.0; pixels[1] = corner.1; pixels[2] = corner.2; pixels[3] = corner.3 }
        return try Bitmap(width: 10, height: 8, pixels: pixels)
    }

    @Test func trimCutsTheBorder() throws {
        let image = try Self.framed()
        let trimmed = try ImageProcessors.Trim().process(image)
        #expect((trimmed.width, trimmed.height) == (4, 3))
        #expect(trimmed.pixels.allSatisfy { $0 == 100 || $0 == 255 })
        #expect(try ImageProcessors.Trim(threshold: 200).process(image) == image)
        #expect(try ImageProcessors.Trim(color: RGBColor(red: 100, green: 100, blue: 100)).process(image) == image)
        // Equal sides: left 3, right 3 already; top 2, bottom 3 → the bottom keeps 2.
        let equal = try ImageProcessors.Trim(equalHorizontal: true, equalVertical: true).process(image)
        #expect((equal.width, equal.height) == (4, 4))
    }

    @Test func trimJudgesTransparencyOverMagenta() throws {
        // A transparent border: over magenta it is one colour, the block differs from it.
        let image = try Self.framed(alpha: 0)
        #expect(try ImageProcessors.Trim().process(image).width == 4)
        #expect(try ImageProcessors.Trim(color: RGBColor(red: 255, green: 0, blue: 255)).process(image).height == 3)
    }

    @Test func smartCutKeepsTheDetail() throws {
        var pixels = [UInt8](repeating: 200, count: 40 * 10 * 4)
        for y in 0..<10 { for x in 30..<36 where (x + y) % 2 == 0 { let i = (y * 40 + x) * 4; pixels[i] = 0; pixels[i + 1] = 0; pixels[i + 2] = 0 } }
        let image = try Bitmap(width: 40, height: 10, pixels: pixels)
        let cut = try ImageProcessors.SmartCut(width: 10, height: 10).process(image)
        #expect((cut.width, cut.height) == (10, 10))
        #expect(cut.pixels.contains(0))
    }

    /// A rectangle resampled in one pass is the whole image resized, then cut.
    @Test func regionResizeIsResizeThenCut() throws {
        let image = try TestImage.bitmap(width: 300, height: 200, seed: 5)
        let whole = try ImageProcessors.Resize(width: 120, height: 80, mode: .exact, allowsUpscaling: true).process(image)
        let cut = try ImageProcessors.Crop(x: 30, y: 10, width: 50, height: 40).process(whole)
        let region = try ImageProcessors.RegionResize(x: 75, y: 25, width: 125, height: 100, outputWidth: 50, outputHeight: 40).process(image)
        #expect((region.width, region.height) == (50, 40))
        let difference = zip(cut.pixels, region.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(difference <= 1, "largest channel difference \(difference)")
        #expect(throws: ProcessingError.self) {
            try ImageProcessors.RegionResize(x: 290, y: 0, width: 50, height: 10, outputWidth: 5, outputHeight: 1).process(image)
        }
        #expect(throws: ProcessingError.self) {
            try ImageProcessors.RegionResize(x: 0, y: 0, width: .nan, height: 10, outputWidth: 5, outputHeight: 1).process(image)
        }
    }
}

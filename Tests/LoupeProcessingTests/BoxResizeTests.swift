import LoupeCodecs
import LoupeProcessing
import Testing

/// The service-facing processors: imgproxy's resize modes with gravity, blur, flattening.
@Suite struct BoxResizeTests {
    /// Left half red, right half blue, `width`×`height`.
    static func halves(width: Int, height: Int) throws -> Bitmap {
        var pixels: [UInt8] = []
        for _ in 0..<height { for x in 0..<width { pixels += x < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255] } }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    @Test(arguments: [
        // (mode, box, enlarge, expected size) for a 300×200 source
        (ImageProcessors.BoxResize.Mode.fit, 100, 100, false, 100, 67), (.fit, 600, 600, false, 300, 200), (.fit, 600, 600, true, 600, 400),
        (.fit, 0, 50, false, 75, 50), (.fit, 150, 0, false, 150, 100),
        (.fill, 100, 100, false, 100, 100), (.fill, 600, 100, false, 300, 100), (.fill, 600, 100, true, 600, 100),
        (.fillDown, 600, 100, false, 300, 50), (.fillDown, 100, 100, false, 100, 100),
        (.force, 100, 30, false, 100, 30), (.force, 600, 30, false, 300, 30), (.force, 600, 30, true, 600, 30),
        (.auto, 100, 50, false, 100, 50), (.auto, 50, 100, false, 50, 33),
    ])
    func sizes(mode: ImageProcessors.BoxResize.Mode, width: Int, height: Int, enlarge: Bool, expectedWidth: Int, expectedHeight: Int) throws {
        let source = try Self.halves(width: 300, height: 200)
        let result = try ImageProcessors.BoxResize(width: width, height: height, mode: mode, enlarge: enlarge).process(source)
        #expect((result.width, result.height) == (expectedWidth, expectedHeight))
    }

    @Test func gravityKeepsItsSide() throws {
        let source = try Self.halves(width: 200, height: 50)
        let west = try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill, gravity: Gravity(.west)).process(source)
        let east = try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill, gravity: Gravity(.east)).process(source)
        let centre = try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill).process(source)
        #expect(west.pixel(x: 49, y: 25) == (255, 0, 0, 255))
        #expect(east.pixel(x: 0, y: 25) == (0, 0, 255, 255))
        // The centre cut straddles the boundary: red on the left, blue on the right.
        #expect(centre.pixel(x: 0, y: 25).r == 255 && centre.pixel(x: 49, y: 25).b == 255)
        // An offset moves the cut inwards from its edge: 80 px in from the west reaches blue.
        let moved = try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill, gravity: Gravity(.west, offsetX: 80)).process(source)
        #expect(moved.pixel(x: 49, y: 25) == (0, 0, 255, 255))
        #expect(moved.pixel(x: 0, y: 25) == (255, 0, 0, 255))
        // Offsets past the edge are clamped inside the image.
        let clamped = try ImageProcessors.BoxResize(width: 50, height: 50, mode: .fill, gravity: Gravity(.west, offsetX: 10_000)).process(source)
        #expect(clamped.pixel(x: 0, y: 25) == (0, 0, 255, 255))
    }

    @Test func refusesImpossibleBoxes() throws {
        let source = try Self.halves(width: 10, height: 10)
        #expect(throws: ProcessingError.invalidSize(width: -1, height: 5)) { try ImageProcessors.BoxResize(width: -1, height: 5).process(source) }
        #expect(throws: ProcessingError.self) { try ImageProcessors.BoxResize(width: 1 << 20, height: 1 << 20).process(source) }
        #expect(throws: ProcessingError.self) { try ImageProcessors.BoxResize(width: 1 << 15, height: 0, enlarge: true).process(source) }
        #expect(try ImageProcessors.BoxResize(width: 0, height: 0).process(source) == source)
    }

    @Test func flattenCompositesOntoTheBackground() throws {
        let pixels: [UInt8] = [255, 0, 0, 255, 255, 0, 0, 0, 0, 0, 255, 128, 10, 20, 30, 255]
        let bitmap = try Bitmap(width: 2, height: 2, pixels: pixels)
        let flat = try ImageProcessors.Flatten(background: RGBColor(red: 0, green: 255, blue: 0)).process(bitmap)
        #expect(flat.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        #expect(flat.pixel(x: 1, y: 0) == (0, 255, 0, 255))
        // Half blue over green: (0·128 + 0·127)/255, (0·128 + 255·127)/255, (255·128)/255.
        #expect(flat.pixel(x: 0, y: 1) == (0, 127, 128, 255))
        #expect(!flat.hasTransparency)
        let opaque = try Bitmap(width: 1, height: 1, pixels: [1, 2, 3, 255])
        #expect(try ImageProcessors.Flatten(background: RGBColor(red: 9, green: 9, blue: 9)).process(opaque) == opaque)
    }

    @Test func blurSpreadsAnEdgeSymmetricallyAndKeepsFlatAreas() throws {
        // A vertical edge: black left, white right; blurred, the two pixels beside the edge are
        // mirror images, and far from it nothing changes.
        var pixels: [UInt8] = []
        for _ in 0..<20 { for x in 0..<40 { let v: UInt8 = x < 20 ? 0 : 255; pixels += [v, v, v, 255] } }
        let edge = try Bitmap(width: 40, height: 20, pixels: pixels)
        let blurred = try ImageProcessors.GaussianBlur(sigma: 2).process(edge)
        let left = Int(blurred.pixel(x: 19, y: 10).r), right = Int(blurred.pixel(x: 20, y: 10).r)
        #expect(left > 0 && left < 128 && right > 128 && right < 255)
        #expect(abs(left + right - 255) <= 1)
        #expect(blurred.pixel(x: 0, y: 10).r == 0 && blurred.pixel(x: 39, y: 10).r == 255)
        #expect(blurred.pixel(x: 19, y: 0) == blurred.pixel(x: 19, y: 19))
        #expect(throws: ProcessingError.self) { try ImageProcessors.GaussianBlur(sigma: 0).process(edge) }
        #expect(throws: ProcessingError.self) { try ImageProcessors.GaussianBlur(sigma: 1000).process(edge) }
    }
}

import Foundation
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport
import Testing

/// The watermark's placement maths (imgproxy's rules) and its blend, on pixels.
@Suite struct WatermarkTests {
    /// Each position on a 100×80 image with a 10×10 mark: imgproxy's corners, edges and centre
    /// (the centre rounds half to even: (100 − 10 + 1) / 2 = 45.5 → 46).
    @Test(arguments: [
        (WatermarkPosition.center, 46, 36), (.north, 46, 0), (.south, 46, 70), (.east, 90, 36), (.west, 0, 36),
        (.northEast, 90, 0), (.northWest, 0, 0), (.southEast, 90, 70), (.southWest, 0, 70),
    ])
    func placesEachPosition(position: WatermarkPosition, x: Int, y: Int) {
        let placement = WatermarkLayout.placement(imageWidth: 100, imageHeight: 80, markWidth: 10, markHeight: 10,
                                                  position: position, xOffset: 0, yOffset: 0, dpr: 1)
        #expect(placement == .single(x: x, y: y))
    }

    /// Offsets of 1 and more are pixels times the dpr, counted inwards from east and south;
    /// below 1 a share of the side; a mark pushed off the image keeps one pixel on it.
    @Test func offsetsArePixelsOrSharesAndKeepAPixelOnTheImage() {
        func place(_ position: WatermarkPosition, _ x: Double, _ y: Double, dpr: Double = 1) -> WatermarkLayout.Placement {
            WatermarkLayout.placement(imageWidth: 100, imageHeight: 80, markWidth: 10, markHeight: 10, position: position,
                                      xOffset: x, yOffset: y, dpr: dpr)
        }
        #expect(place(.northWest, 5, 7) == .single(x: 5, y: 7))
        #expect(place(.southEast, 5, 7) == .single(x: 85, y: 63))
        #expect(place(.northWest, 5, 7, dpr: 2) == .single(x: 10, y: 14))
        #expect(place(.northWest, 0.5, 0.25) == .single(x: 50, y: 20))
        #expect(place(.center, 10, -10) == .single(x: 56, y: 26))
        #expect(place(.northWest, 500, -500) == .single(x: 99, y: -9))
    }

    /// Tiling: the offsets are the spacing, split on both sides of each copy; negative spacing
    /// tiles edge to edge.
    @Test func tilesWithTheOffsetsAsSpacing() {
        #expect(WatermarkLayout.placement(imageWidth: 100, imageHeight: 80, markWidth: 10, markHeight: 6, position: .replicate,
                                          xOffset: 10, yOffset: 5, dpr: 1) == .tiled(cellWidth: 20, cellHeight: 11, left: 5, top: 2))
        #expect(WatermarkLayout.placement(imageWidth: 100, imageHeight: 80, markWidth: 10, markHeight: 6, position: .replicate,
                                          xOffset: -3, yOffset: 0, dpr: 1) == .tiled(cellWidth: 10, cellHeight: 6, left: 0, top: 0))
    }

    /// The scale fits the mark (enlarging too) into that share of the image; 0 keeps it.
    @Test func scaleFitsTheMarkIntoAShareOfTheImage() {
        #expect(WatermarkLayout.size(markWidth: 10, markHeight: 10, imageWidth: 100, imageHeight: 80, scale: 0) == (10, 10))
        #expect(WatermarkLayout.size(markWidth: 10, markHeight: 10, imageWidth: 100, imageHeight: 80, scale: 0.5) == (40, 40))
        #expect(WatermarkLayout.size(markWidth: 40, markHeight: 10, imageWidth: 100, imageHeight: 80, scale: 0.5) == (50, 13))
        #expect(WatermarkLayout.size(markWidth: 10, markHeight: 10, imageWidth: 100, imageHeight: 80, scale: 0.001) == (1, 1))
    }

    /// An opaque red mark over white at opacity 0.25: red stays 255, green and blue are white ×
    /// 0.75; outside the mark nothing changes; the image's alpha is kept where it is opaque.
    @Test func blendsAtTheOpacity() throws {
        let image = try Bitmap(width: 20, height: 20, pixels: [UInt8](repeating: 255, count: 20 * 20 * 4))
        let mark = try Bitmap(width: 4, height: 4, pixels: (0..<16).flatMap { _ in [UInt8(255), 0, 0, 255] })
        let full = try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 1, position: .northWest).process(image)
        #expect(full.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        #expect(full.pixel(x: 3, y: 3) == (255, 0, 0, 255))
        #expect(full.pixel(x: 4, y: 4) == (255, 255, 255, 255))
        let quarter = try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 0.25, position: .southEast).process(image)
        let blended = quarter.pixel(x: 19, y: 19)
        #expect(blended.r == 255 && blended.a == 255)
        #expect(abs(Int(blended.g) - 191) <= 1 && abs(Int(blended.b) - 191) <= 1)
        #expect(quarter.pixel(x: 15, y: 15) == (255, 255, 255, 255))
        let none = try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 0, position: .center).process(image)
        #expect(none == image)
    }

    /// Over a transparent image the mark keeps its own colour (premultiplied: no dark fringe)
    /// and the result's alpha is the mark's × the opacity.
    @Test func overTransparencyKeepsTheMarksColour() throws {
        let image = try Bitmap(width: 8, height: 8, pixels: [UInt8](repeating: 0, count: 8 * 8 * 4))
        let mark = try Bitmap(width: 8, height: 8, pixels: (0..<64).flatMap { _ in [UInt8(0), 200, 0, 255] })
        let result = try ImageProcessors.Watermark(mark: mark, markIdentity: "green", opacity: 0.5).process(image)
        let pixel = result.pixel(x: 4, y: 4)
        #expect(pixel.r == 0 && pixel.g == 200 && pixel.b == 0)
        #expect(abs(Int(pixel.a) - 128) <= 1)
    }

    /// Tiled over the whole image: each cell has a copy at its spacing, the gaps are untouched.
    @Test func tiledCoversEachCell() throws {
        let image = try Bitmap(width: 50, height: 50, pixels: [UInt8](repeating: 255, count: 50 * 50 * 4))
        let mark = try Bitmap(width: 6, height: 6, pixels: (0..<36).flatMap { _ in [UInt8(255), 0, 0, 255] })
        let result = try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 1, position: .replicate, xOffset: 4, yOffset: 4).process(image)
        for cellY in 0..<5 {
            for cellX in 0..<5 {
                #expect(result.pixel(x: cellX * 10 + 2, y: cellY * 10 + 2) == (255, 0, 0, 255))
                #expect(result.pixel(x: cellX * 10 + 7, y: cellY * 10 + 7) == (255, 0, 0, 255))
                #expect(result.pixel(x: cellX * 10, y: cellY * 10) == (255, 255, 255, 255))
                #expect(result.pixel(x: cellX * 10 + 9, y: cellY * 10 + 9) == (255, 255, 255, 255))
            }
        }
    }

    /// A scale that would make the mark more than four times the image's area is refused
    /// before the mark is resized; up to it, the mark is drawn.
    @Test func hugeScalesAreRefused() throws {
        let image = try Bitmap(width: 20, height: 20, pixels: [UInt8](repeating: 255, count: 20 * 20 * 4))
        let mark = try Bitmap(width: 2, height: 2, pixels: (0..<4).flatMap { _ in [UInt8(255), 0, 0, 255] })
        #expect(throws: ProcessingError.self) { try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 1, scale: 1000).process(image) }
        let doubled = try ImageProcessors.Watermark(mark: mark, markIdentity: "red", opacity: 1, scale: 2).process(image)
        #expect(doubled.pixel(x: 0, y: 0) == (255, 0, 0, 255))
    }

    /// The identifier names the mark's content and every parameter (cache keys).
    @Test func identifierNamesTheMarkAndParameters() throws {
        let mark = try Bitmap(width: 1, height: 1, pixels: [255, 0, 0, 255])
        let a = ImageProcessors.Watermark(mark: mark, markIdentity: "one", opacity: 0.5, position: .east, xOffset: 3)
        let b = ImageProcessors.Watermark(mark: mark, markIdentity: "two", opacity: 0.5, position: .east, xOffset: 3)
        let c = ImageProcessors.Watermark(mark: mark, markIdentity: "one", opacity: 0.5, position: .east, xOffset: 4)
        #expect(a.identifier != b.identifier && a.identifier != c.identifier)
    }
}

/// The blend against Pillow's `Image.alpha_composite` (Scripts/conformance/composite_reference.py):
/// a semi-transparent mark over a semi-transparent image, partly off its edge.
@Suite struct WatermarkPillowTests {
    @Test func blendMatchesPillowsAlphaComposite() async throws {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func noise(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 56)
            }
        }
        let image = try Bitmap(width: 40, height: 30, pixels: noise(40 * 30 * 4))
        let mark = try Bitmap(width: 16, height: 12, pixels: noise(16 * 12 * 4))
        let ours = try ImageProcessors.Watermark(mark: mark, markIdentity: "noise", opacity: 0.7, position: .southEast, xOffset: -5, yOffset: 3)
            .process(image)
        // South-east with x offset −5 and y offset 3: x = 40 − 16 + 5 = 29 (partly off the right
        // edge), y = 30 − 12 − 3 = 15.
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let imagePath = folder.appendingPathComponent("image.rgba"), markPath = folder.appendingPathComponent("mark.rgba")
        let outPath = folder.appendingPathComponent("out.rgba")
        try Data(image.pixels).write(to: imagePath)
        try Data(mark.pixels).write(to: markPath)
        _ = try await PythonReference.run("composite_reference.py", arguments: [
            imagePath.path, "40", "30", markPath.path, "16", "12", "29", "15", "0.7", outPath.path,
        ])
        let reference = [UInt8](try Data(contentsOf: outPath))
        try #require(reference.count == ours.pixels.count)
        var worst = 0
        for i in stride(from: 0, to: reference.count, by: 4) {
            let alpha = Int(ours.pixels[i + 3])
            worst = max(worst, abs(alpha - Int(reference[i + 3])))
            // Colours compared premultiplied: where alpha is near 0 a colour barely exists.
            for c in 0..<3 {
                worst = max(worst, abs(Int(ours.pixels[i + c]) * alpha / 255 - Int(reference[i + c]) * Int(reference[i + 3]) / 255))
            }
        }
        #expect(worst <= 2)
        #expect(ours != image)
    }
}

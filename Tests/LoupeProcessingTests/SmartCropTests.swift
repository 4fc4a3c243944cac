import LoupeCodecs
import LoupeProcessing
import Testing

/// Smart gravity (`g:sm`): a cut keeps the region with the most detail.
@Suite struct SmartCropTests {
    /// A flat grey image with one 60×60 checkerboard patch (2-pixel squares, black and white)
    /// at (`patchX`, `patchY`).
    static func patched(width: Int, height: Int, patchX: Int, patchY: Int) throws -> Bitmap {
        var pixels = [UInt8]()
        pixels.reserveCapacity(width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let inside = (patchX..<patchX + 60).contains(x) && (patchY..<patchY + 60).contains(y)
                let value: UInt8 = inside ? ((x / 2 + y / 2) % 2 == 0 ? 0 : 255) : 128
                pixels += [value, value, value, 255]
            }
        }
        return try Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Pixels of the patch (black or white) in `bitmap`.
    static func patchPixels(_ bitmap: Bitmap) -> Int {
        var count = 0
        for y in 0..<bitmap.height {
            for x in 0..<bitmap.width where bitmap.pixel(x: x, y: y).r != 128 { count += 1 }
        }
        return count
    }

    /// The answer is known: only a cut that contains the whole patch keeps all 3,600 of its
    /// pixels, and the centre cut (what `g:ce` keeps) contains none of them.
    @Test(arguments: [(300, 100, 220, 20), (300, 100, 10, 20), (100, 300, 20, 200), (400, 100, 130, 20)])
    func theCutKeepsTheDetailedPatch(width: Int, height: Int, patchX: Int, patchY: Int) throws {
        let image = try Self.patched(width: width, height: height, patchX: patchX, patchY: patchY)
        let smart = try ImageProcessors.BoxResize(width: 100, height: 100, mode: .fill, gravity: .smart).process(image)
        #expect((smart.width, smart.height) == (100, 100))
        #expect(Self.patchPixels(smart) == 3600)
        if patchX != 130 {
            let centre = try ImageProcessors.BoxResize(width: 100, height: 100, mode: .fill, gravity: .center).process(image)
            #expect(Self.patchPixels(centre) == 0)
        }
    }

    /// Where several cuts keep all of the detail, the middle one: the patch is centred.
    @Test func aDetailThatFitsSeveralCutsIsCentred() throws {
        // Patch at 250..<310 in 400: full cuts start at 210...250, the middle is 230, leaving 20
        // grey columns before the patch (a grid cell, 6.25 px, of tolerance).
        let image = try Self.patched(width: 400, height: 100, patchX: 250, patchY: 20)
        let smart = try ImageProcessors.BoxResize(width: 100, height: 100, mode: .fill, gravity: .smart).process(image)
        let firstPatchColumn = (0..<100).first { x in smart.pixel(x: x, y: 50).r != 128 }
        let column = try #require(firstPatchColumn)
        #expect(abs(column - 20) <= 7)
    }
}

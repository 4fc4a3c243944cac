import Foundation
import Testing
import LoupeCodecs
import LoupeProcessing

/// Dominant colour and palette on synthetic pixels, with expected values from running
/// colorthief 0.2.1's `MMCQ.quantize` on the same pixel lists (the corpus-wide comparison is
/// ColorThiefConformanceTests).
@Suite struct DominantColorTests {
    @Test func singleColorImageKeepsColorThiefsEmptyBoxes() throws {
        // MMCQ.quantize([(10, 20, 30)] * 100, 5) == [(12, 20, 28)] + [(16, 20, 28)] * 4: the one
        // populated bin, then empty boxes the cuts leave behind, reported at their centres.
        let bitmap = try makeBitmap(width: 10, height: 10) { _, _ in (10, 20, 30, 255) }
        #expect(try bitmap.dominantColor(quality: 1) == RGBColor(red: 12, green: 20, blue: 28))
        #expect(try bitmap.palette(count: 5, quality: 1)
            == [RGBColor(red: 12, green: 20, blue: 28)] + Array(repeating: RGBColor(red: 16, green: 20, blue: 28), count: 4))
    }

    @Test func twoColorImage() throws {
        // MMCQ.quantize([(10, 20, 30)] * 50 + [(200, 100, 0)] * 50, 5)
        //   == [(204, 100, 4), (12, 20, 28), (208, 60, 16), (208, 60, 16), (208, 60, 16)]
        let bitmap = try makeBitmap(width: 10, height: 10) { _, y in y < 5 ? (10, 20, 30, 255) : (200, 100, 0, 255) }
        #expect(try bitmap.palette(count: 5, quality: 1) == [
            RGBColor(red: 204, green: 100, blue: 4), RGBColor(red: 12, green: 20, blue: 28),
            RGBColor(red: 208, green: 60, blue: 16), RGBColor(red: 208, green: 60, blue: 16),
            RGBColor(red: 208, green: 60, blue: 16),
        ])
        #expect(try bitmap.dominantColor(quality: 1) == RGBColor(red: 204, green: 100, blue: 4))
    }

    @Test func onePixelSampleGivesOneColor() throws {
        // MMCQ.quantize([(10, 20, 30)], n) == [(12, 20, 28)] for every n: a box of one pixel
        // is never cut. The only case where our palette is shorter than asked.
        let bitmap = try makeBitmap(width: 1, height: 1) { _, _ in (10, 20, 30, 255) }
        #expect(try bitmap.palette(count: 10) == [RGBColor(red: 12, green: 20, blue: 28)])
    }

    @Test func samplingSkipsTransparentAndWhitePixelsInRowMajorSteps() throws {
        // Row-major sampling every 3rd pixel of a 4-wide image visits x = 0, 3, 2, 1, 0, ...:
        // only those pixels count. Mark the visited ones dark, the rest bright red.
        let visited = Set(stride(from: 0, to: 4 * 6, by: 3))
        let bitmap = try makeBitmap(width: 4, height: 6) { x, y in
            visited.contains(y * 4 + x) ? (40, 40, 40, 255) : (255, 0, 0, 255)
        }
        #expect(try bitmap.dominantColor(quality: 3) == RGBColor(red: 44, green: 44, blue: 44))

        // alpha 124 is skipped, 125 kept; (251, 251, 251) skipped, (251, 251, 250) kept.
        let edge = try makeBitmap(width: 4, height: 1) { x, _ in
            [(0, 0, 0, 124), (251, 251, 251, 255), (251, 251, 250, 255), (90, 90, 90, 124)][x]
        }
        #expect(try edge.dominantColor(quality: 1) == RGBColor(red: 252, green: 252, blue: 252))
        let keptAlpha = try makeBitmap(width: 1, height: 1) { _, _ in (90, 90, 90, 125) }
        #expect(try keptAlpha.dominantColor(quality: 1) == RGBColor(red: 92, green: 92, blue: 92))
    }

    @Test func noUsablePixelsIsATypedError() throws {
        let white = try makeBitmap(width: 8, height: 8) { _, _ in (255, 255, 255, 255) }
        let clear = try makeBitmap(width: 8, height: 8) { _, _ in (30, 60, 90, 0) }
        #expect(throws: ColorExtractionError.noUsablePixels) { try white.dominantColor() }
        #expect(throws: ColorExtractionError.noUsablePixels) { try clear.palette() }
    }

    @Test func argumentsAreChecked() throws {
        let bitmap = try makeBitmap(width: 64, height: 64) { x, y in (UInt8(x * 4), UInt8(y * 4), UInt8(x ^ y), 255) }
        #expect(throws: ColorExtractionError.invalidQuality(0)) { try bitmap.dominantColor(quality: 0) }
        #expect(throws: ColorExtractionError.invalidColorCount(0)) { try bitmap.palette(count: 0) }
        #expect(throws: ColorExtractionError.invalidColorCount(256)) { try bitmap.palette(count: 256) }
        #expect(try bitmap.palette(count: 255, quality: 1).count == 255)
    }

    @Test func paletteHasExactlyTheCountAsked() throws {
        let bitmap = try makeBitmap(width: 64, height: 64) { x, y in (UInt8(x * 4), UInt8(y * 4), UInt8((x + y) * 2), 255) }
        for count in [1, 2, 3, 5, 8, 10, 16, 32] {
            #expect(try bitmap.palette(count: count).count == count)
        }
        #expect(try bitmap.palette(count: 5).first == bitmap.dominantColor())
    }

    @Test func rowPaddingIsIgnored() throws {
        let tight = try makeBitmap(width: 5, height: 7) { x, y in (UInt8(x * 50), UInt8(y * 30), 77, 255) }
        var padded = [UInt8]()
        for y in 0..<7 { padded += tight.pixels[y * 20 ..< y * 20 + 20] + [1, 2, 3, 4, 5, 6, 7, 8] }
        let bitmap = try Bitmap(width: 5, height: 7, bytesPerRow: 28, pixels: padded)
        #expect(try bitmap.palette(count: 4, quality: 2) == tight.palette(count: 4, quality: 2))
    }
}

/// The poster feed's background colour.
@Suite struct BackgroundColorTests {
    @Test func keepsHueAtLowSaturationAndHighBrightness() {
        // Hue 0: (v, v(1-s), v(1-s)) = (0.95, 0.874, 0.874) * 255 = (242.25, 222.87, 222.87).
        #expect(RGBColor(red: 255, green: 0, blue: 0).backgroundColor == RGBColor(red: 242, green: 223, blue: 223))
        // Hue 2/3 (blue): (p, p, v).
        #expect(RGBColor(red: 10, green: 10, blue: 200).backgroundColor == RGBColor(red: 223, green: 223, blue: 242))
        // Hue 1/3 (green) from a dark green: brightness and saturation of the input do not matter.
        #expect(RGBColor(red: 0, green: 60, blue: 0).backgroundColor == RGBColor(red: 223, green: 242, blue: 223))
        // Greys have hue 0 in UIKit's model.
        #expect(RGBColor(red: 128, green: 128, blue: 128).backgroundColor == RGBColor(red: 242, green: 223, blue: 223))
    }

    @Test func hueSurvivesWithinEightBitPrecision() {
        for (r, g, b) in [(152, 115, 89), (183, 97, 52), (48, 60, 85), (20, 200, 120), (200, 30, 160)] as [(UInt8, UInt8, UInt8)] {
            let color = RGBColor(red: r, green: g, blue: b)
            let background = HSBColor(color.backgroundColor)
            // At saturation 0.08 one 8-bit step moves the hue by up to 1/(6 * 19).
            let difference = abs(background.hue - HSBColor(color).hue)
            #expect(min(difference, 1 - difference) < 0.01)
            #expect(abs(background.saturation - 0.08) < 0.005)
            #expect(abs(background.brightness - 0.95) < 0.002)
        }
    }

    @Test func hsbRoundTripsEveryHueSector() {
        for color in [RGBColor(red: 200, green: 100, blue: 0), RGBColor(red: 100, green: 200, blue: 0),
                      RGBColor(red: 0, green: 200, blue: 100), RGBColor(red: 0, green: 100, blue: 200),
                      RGBColor(red: 100, green: 0, blue: 200), RGBColor(red: 200, green: 0, blue: 100)] {
            #expect(HSBColor(color).rgb == color)
        }
    }
}

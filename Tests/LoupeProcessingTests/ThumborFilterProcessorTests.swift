import Foundation
import Glibc
@testable import LoupeProcessing
import LoupeCodecs
import LoupeTestSupport
import Testing

/// thumbor's pixel filters, one value each worked out by hand from thumbor's arithmetic (its C
/// filters' integer truncation and clamping), and the noise generator against glibc's own
/// `random_r`. thumbor's expected images judge them in the service's conformance tests.
@Suite struct ThumborFilterProcessorTests {
    /// One pixel (and a second, transparent, to show alpha is kept).
    static func pixels(_ values: [UInt8]) throws -> Bitmap {
        try Bitmap(width: values.count / 4, height: 1, pixels: values)
    }

    static func rgba(_ bitmap: Bitmap) -> [UInt8] { bitmap.pixels }

    @Test func colourFiltersFollowThumborsArithmetic() throws {
        let input = try Self.pixels([10, 128, 250, 255, 200, 100, 0, 40])
        // 255·20/100 = 51 added, clamped.
        #expect(Self.rgba(try ImageProcessors.ChannelTables.brightness(percent: 20).process(input)) == [61, 179, 255, 255, 251, 151, 51, 40])
        // -100 %: 255 taken away.
        #expect(Self.rgba(try ImageProcessors.ChannelTables.brightness(percent: -100).process(input)) == [0, 0, 0, 255, 0, 0, 0, 40])
        // (20+100)²/100 = 144 %: 144·(10−128)/100 = −169 (truncated) + 128 → 0; 144·122/100 = 175 + 128 → 255;
        // 144·72/100 = 103 + 128; 144·(−28)/100 = −40 + 128.
        #expect(Self.rgba(try ImageProcessors.ChannelTables.contrast(percent: 20).process(input)) == [0, 128, 255, 255, 231, 88, 0, 40])
        // 255·10/100 = 25, 255·-2/100 = −5, 255·4/100 = 10.
        #expect(Self.rgba(try ImageProcessors.ChannelTables.channelOffset(red: 10, green: -2, blue: 4).process(input)) == [35, 123, 255, 255, 225, 95, 10, 40])
        // 10·0.6 + 255·0.4 = 108; 128·0.2 + 255·0.8 = 229.6 → 229; 250·0.8 + 255·0.2 = 251.
        #expect(Self.rgba(try ImageProcessors.ChannelTables.colorize(redPercent: 40, greenPercent: 80, bluePercent: 20, color: RGBColor(red: 255, green: 255, blue: 255))
            .process(input)) == [108, 229, 251, 255, 222, 224, 51, 40])
        // Luma, PIL's rounding: (10·19595 + 128·38470 + 250·7471 + 32768) >> 16 = 107.
        #expect(Self.rgba(try ImageProcessors.ColorTransform.grayscale.process(input)).prefix(4) == [107, 107, 107, 255])
        // Factor 0: every channel is the pixel's brightness √(0.299r² + 0.587g² + 0.114b²).
        let squares: Double = 0.299 * 100 + 0.587 * 16384 + 0.114 * 62500
        let grey = UInt8(squares.squareRoot())
        let desaturated: [UInt8] = Array(Self.rgba(try ImageProcessors.ColorTransform.saturation(factor: 0).process(input)).prefix(4))
        #expect(desaturated == [grey, grey, grey, 255])
        #expect(try ImageProcessors.ColorTransform.saturation(factor: 1).process(input) == input)
    }

    @Test func curvesAndEqualizeMapEachChannel() throws {
        let input = try TestImage.bitmap(width: 16, height: 8, seed: 3)
        let line: ImageProcessors.ChannelTables.CurvePoints = [(0, 0), (255, 255)]
        #expect(try #require(ImageProcessors.ChannelTables.curve(all: line, red: line, green: line, blue: line)).process(input) == input)
        // Red inverted, then everything through a flat 100 from x = 0: all 100.
        let inverted = try #require(ImageProcessors.ChannelTables.curve(all: line, red: [(0, 255), (255, 0)], green: line, blue: line))
        #expect(try inverted.process(input).pixel(x: 0, y: 0).r == 255 - input.pixel(x: 0, y: 0).r)
        #expect(try #require(ImageProcessors.ChannelTables.curve(all: [(0, 100)], red: line, green: line, blue: line)).process(input).pixel(x: 3, y: 3).g == 100)
        // Three points: the spline passes through each.
        let table = ImageProcessors.ChannelTables.spline([(0, 0), (128, 200), (255, 255)])
        #expect(table[0] == 0 && table[128] == 200 && table[255] == 255 && table[64] > 100)
        #expect(ImageProcessors.ChannelTables.curve(all: [], red: line, green: line, blue: line) == nil)
        #expect(ImageProcessors.ChannelTables.curve(all: [(10, 0), (5, 9)], red: line, green: line, blue: line) == nil)
        #expect(ImageProcessors.ChannelTables.curve(all: [(0, 256)], red: line, green: line, blue: line) == nil)
        // Two values per channel. Red's darkest value (50) comes first, so only red gets a
        // minimum (thumbor's rule): red maps to 0 and 255; green and blue, minimum 0, to
        // 2/3 · 255 and 255.
        let twoTone = try Self.pixels([50, 60, 70, 255, 50, 60, 70, 255, 90, 100, 110, 255])
        #expect(Self.rgba(try ImageProcessors.Equalize().process(twoTone)) == [0, 170, 170, 255, 0, 170, 170, 255, 255, 255, 255, 255])
        // One value per channel: red, which holds the minimum, has no spread and is kept (where
        // thumbor divides by zero); green and blue, minimum 0, go to 255 as in thumbor.
        let flat = try Self.pixels([50, 60, 70, 255, 50, 60, 70, 255])
        #expect(Self.rgba(try ImageProcessors.Equalize().process(flat)) == [50, 255, 255, 255, 50, 255, 255, 255])
    }

    /// Flat areas far from an edge stay as they are; an edge gets steeper; amount 0
    /// puts the levels back together unchanged; the luma-only path keeps a grey image grey.
    @Test func waveletSharpenAmplifiesDetail() throws {
        var values = [UInt8]()
        for _ in 0..<32 { for x in 0..<32 { values += x < 16 ? [80, 80, 80, 255] : [160, 160, 160, 255] } }
        let edge = try Bitmap(width: 32, height: 32, pixels: values)
        let sharpened = try ImageProcessors.WaveletSharpen(amount: 2, radius: 0.5, luminanceOnly: false).process(edge)
        // Far from the edge only the coarsest levels see it, at a gain of almost 1.
        #expect(abs(Int(sharpened.pixel(x: 2, y: 16).r) - 80) <= 1 && sharpened.pixel(x: 2, y: 16).a == 255)
        #expect(sharpened.pixel(x: 15, y: 16).r < 80 && sharpened.pixel(x: 16, y: 16).r > 160)
        let input = try TestImage.bitmap(width: 24, height: 20, seed: 6)
        let unchanged = try ImageProcessors.WaveletSharpen(amount: 0, radius: 1, luminanceOnly: false).process(input)
        let difference = zip(unchanged.pixels, input.pixels).map { abs(Int($0) - Int($1)) }.max() ?? 0
        #expect(difference <= 1)
        let grey = try ImageProcessors.WaveletSharpen(amount: 2, radius: 0.5, luminanceOnly: true).process(edge)
        #expect(grey.pixel(x: 16, y: 16).r > 160 && abs(Int(grey.pixel(x: 16, y: 16).r) - Int(grey.pixel(x: 16, y: 16).b)) <= 1)
    }

    @Test func noiseDrawsGlibcsSequence() throws {
        for seed in [1, 123, 2_147_483_647] as [UInt32] {
            var generator = NoiseGenerator(seed: seed)
            var state = [CChar](repeating: 0, count: 128)
            var data = random_data()
            var reference: [Int32] = []
            state.withUnsafeMutableBufferPointer { buffer in
                guard let base = buffer.baseAddress else { return }
                _ = initstate_r(seed, base, buffer.count, &data)
                for _ in 0..<1_000 {
                    var value: Int32 = 0
                    _ = random_r(&data, &value)
                    reference.append(value)
                }
            }
            let ours = (0..<1_000).map { _ in Int32(generator.next()) }
            #expect(ours == reference, "seed \(seed)")
        }
        // The same offset on the three channels of a pixel; seed 0 is seed 1.
        let input = try TestImage.bitmap(width: 16, height: 16, seed: 2)
        let noisy = try ImageProcessors.ColorTransform.noise(amount: 40, seed: 0).process(input)
        #expect(noisy == (try ImageProcessors.ColorTransform.noise(amount: 40, seed: 1).process(input)))
        #expect(noisy != input)
        #expect(try ImageProcessors.ColorTransform.noise(amount: 0, seed: 5).process(input) == input)
    }

    @Test func convolutionWeighsTheNeighbourhood() throws {
        let input = try TestImage.bitmap(width: 9, height: 7, seed: 1)
        let identity = try #require(ImageProcessors.Convolution(weights: [0, 0, 0, 0, 1, 0, 0, 0, 0], columns: 3, normalizes: true))
        #expect(try identity.process(input) == input)
        // A box of ones normalised: the mean of the 3×3 neighbourhood, edges repeated, truncated.
        let box = try #require(ImageProcessors.Convolution(weights: [Double](repeating: 1, count: 9), columns: 3, normalizes: true))
        let blurred = try box.process(input)
        var sum = 0.0
        for dy in -1...1 { for dx in -1...1 { sum += Double(input.pixel(x: min(max(dx, 0), 8), y: min(max(dy, 0), 6)).r) * (1.0 / 9) } }
        #expect(blurred.pixel(x: 0, y: 0).r == UInt8(sum))
        #expect(blurred.pixel(x: 0, y: 0).a == 255)
        // Even sides, a ragged matrix, one past the bound: refused.
        #expect(ImageProcessors.Convolution(weights: [1, 1, 1, 1], columns: 2, normalizes: true) == nil)
        #expect(ImageProcessors.Convolution(weights: [1, 1, 1, 1, 1], columns: 3, normalizes: true) == nil)
        #expect(ImageProcessors.Convolution(weights: [Double](repeating: 1, count: 17), columns: 17, normalizes: true) == nil)
    }

    @Test func roundCornersPaintOutsideTheArc() throws {
        let input = try Bitmap(width: 40, height: 30, pixels: [UInt8](repeating: 100, count: 40 * 30 * 4))
        let rounded = try ImageProcessors.RoundCorner(radiusX: 10, radiusY: 10, color: RGBColor(red: 255, green: 0, blue: 0), transparent: true).process(input)
        for (x, y) in [(0, 0), (0, 29), (39, 0), (39, 29), (2, 1)] {
            #expect(rounded.pixel(x: x, y: y) == (255, 0, 0, 0), "(\(x), \(y))")
        }
        for (x, y) in [(20, 15), (10, 0), (0, 10), (9, 9)] {
            #expect(rounded.pixel(x: x, y: y) == (100, 100, 100, 100), "(\(x), \(y))")
        }
        // Radii past half a side are that half.
        let huge = try ImageProcessors.RoundCorner(radiusX: 500, radiusY: 500, color: RGBColor(red: 0, green: 0, blue: 255), transparent: false).process(input)
        #expect(huge.pixel(x: 20, y: 15) == (100, 100, 100, 100))
        #expect(huge.pixel(x: 1, y: 1) == (0, 0, 255, 100))
    }

    @Test func backdropsCentreTheImage() throws {
        let input = try Bitmap(width: 4, height: 2, pixels: [UInt8]((0..<8).flatMap { [UInt8($0 * 10), 0, 0, 255] }))
        let filled = try ImageProcessors.Backdrop(width: 8, height: 4, style: .averageColor, merges: false).process(input)
        #expect((filled.width, filled.height) == (8, 4))
        // The average red of 0, 10, …, 70 is 35; the image sits at (2, 1).
        #expect(filled.pixel(x: 0, y: 0) == (35, 0, 0, 255))
        #expect(filled.pixel(x: 2, y: 1) == (0, 0, 0, 255))
        #expect(filled.pixel(x: 5, y: 2) == (70, 0, 0, 255))
        let blurred = try ImageProcessors.Backdrop(width: 8, height: 4, style: .blurred(radius: 2), merges: true).process(input)
        #expect((blurred.width, blurred.height) == (8, 4))
        #expect(blurred.pixel(x: 3, y: 1) == input.pixel(x: 1, y: 0))
    }

    /// thumbor's merging paste: its doubles, truncated. A nearly opaque red over a half-clear
    /// black comes out 254 opaque (255 if rounded); its red 200·254/255 ÷ 0.998 = 199.2 → 199.
    @Test func mergesAsThumborsCompositeDoes() {
        var below: [UInt8] = [0, 0, 0, 128]
        ImageProcessors.Backdrop.composite([200, 0, 0, 254], at: 0, over: &below, at: 0)
        #expect(below == [199, 0, 0, 254])
        var clear: [UInt8] = [9, 9, 9, 0]
        ImageProcessors.Backdrop.composite([37, 200, 255, 100], at: 0, over: &clear, at: 0)
        #expect(clear == [37, 200, 255, 100])
    }

    /// A clear pixel's hidden colour stays hidden: thumbor blurs the canvas after pasting the image
    /// onto a clear one, which makes it black. Here a hidden white would blur to a red of 185 at
    /// the canvas's right edge (0.73 of 255), where the blurred alpha is about 69.
    @Test func blurredCanvasesDoNotShowHiddenColours() throws {
        let input = try Bitmap(width: 2, height: 1, pixels: [0, 0, 0, 255, 255, 255, 255, 0])
        let filled = try ImageProcessors.Backdrop(width: 4, height: 1, style: .blurred(radius: 1), merges: false).process(input)
        #expect(filled.pixel(x: 3, y: 0).a > 30)
        #expect(filled.pixel(x: 3, y: 0).r == 0 && filled.pixel(x: 0, y: 0).r == 0)
    }

    /// thumbor's placement rules, and its mark-size rule against the bounds its
    /// `test_watermark_filter_calculated_resizing` checks.
    @Test func watermarksArePlacedAsThumborPlacesThem() throws {
        #expect(ImageProcessors.PositionedWatermark.placements(.pixels(30, fromEnd: false), side: 800, markSide: 30).offsets == [30])
        #expect(ImageProcessors.PositionedWatermark.placements(.pixels(50, fromEnd: true), side: 533, markSide: 30).offsets == [453])
        #expect(ImageProcessors.PositionedWatermark.placements(.pixels(0, fromEnd: true), side: 533, markSide: 30).offsets == [503])
        #expect(ImageProcessors.PositionedWatermark.placements(.percent(4, fromEnd: false), side: 800, markSide: 30).offsets == [32])
        #expect(ImageProcessors.PositionedWatermark.placements(.center, side: 533, markSide: 30).offsets == [251])
        // 800 / 30 = 26 marks, the 20 pixels left spread over the 25 gaps (0 each).
        let repeated = ImageProcessors.PositionedWatermark.placements(.repeat, side: 800, markSide: 30)
        #expect(repeated.repeats && repeated.offsets.count == 26 && repeated.offsets.last == 750)
        // Fewer than two fit: as many as cover the side, 10 pixels apart.
        #expect(ImageProcessors.PositionedWatermark.placements(.repeat, side: 50, markSide: 30).offsets == [0, 40])
        for (image, mark) in [((800, 533), (30, 30)), ((300, 800), (900, 600)), ((1000, 10), (10, 1000))] {
            for (widthRatio, heightRatio) in [(0.5, nil), (nil, 0.7), (0.6, 0.8), (0.2, 0.01)] as [(Double?, Double?)] {
                let size = ImageProcessors.PositionedWatermark.fittedSize(image: image, mark: mark, widthRatio: widthRatio, heightRatio: heightRatio)
                let maxWidth = widthRatio.map { Double(image.0) * $0 } ?? .infinity
                let maxHeight = heightRatio.map { Double(image.1) * $0 } ?? .infinity
                #expect(Double(size.width) <= maxWidth.rounded() && Double(size.height) <= maxHeight.rounded(), "\(image) \(mark) \(size)")
                #expect(Double(size.width) == maxWidth.rounded() || Double(size.height) == maxHeight.rounded(), "\(image) \(mark) \(size)")
            }
        }
        let image = try Bitmap(width: 20, height: 10, pixels: [UInt8](repeating: 0, count: 20 * 10 * 4).enumerated().map { $0.offset % 4 == 3 ? 255 : 0 })
        let mark = try Bitmap(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 16))
        // Half transparent: white over black, half way.
        let marked = try ImageProcessors.PositionedWatermark(mark: mark, markIdentity: "m", x: .pixels(1, fromEnd: true), y: .center, alpha: 50,
                                             widthRatio: nil, heightRatio: nil).process(image)
        #expect(marked.pixel(x: 17, y: 4).r == 128 && marked.pixel(x: 17, y: 4).a == 255)
        #expect(marked.pixel(x: 19, y: 4).r == 0 && marked.pixel(x: 16, y: 4).r == 0)
    }

    /// thumbor's blur on a white point in black: across, then down, each pass truncated; the
    /// kernel stops at the radius; an opaque image stays opaque and alpha blurs when there is
    /// transparency.
    @Test func blurSpreadsAPointByThumborsKernel() throws {
        var pixels = [UInt8](repeating: 0, count: 9 * 9 * 4)
        for index in stride(from: 3, to: pixels.count, by: 4) { pixels[index] = 255 }
        let centre = (4 * 9 + 4) * 4
        (pixels[centre], pixels[centre + 1], pixels[centre + 2]) = (255, 255, 255)
        let blur = try #require(ImageProcessors.ThumborBlur(radius: 2))
        #expect(blur.sigma == 2)
        // exp(−x²/8) for x in −2...2, divided by their sum (the density's factor cancels).
        let curve = (-2...2).map { exp(-Double($0 * $0) / 8) }
        let weights = curve.map { $0 / curve.reduce(0, +) }
        let blurred = try blur.process(try Bitmap(width: 9, height: 9, pixels: pixels))
        func red(_ x: Int, _ y: Int) -> Int { Int(blurred.pixels[(y * 9 + x) * 4]) }
        for (x, y) in [(4, 4), (5, 4), (4, 6), (6, 6), (3, 2)] {
            let across = Int(255 * weights[x - 4 + 2])
            #expect(red(x, y) == Int(Double(across) * weights[y - 4 + 2]), "(\(x), \(y))")
        }
        #expect(red(4, 4) == 16)  // 255 · 0.2527 = 64, then 64 · 0.2527 = 16
        // Beyond the radius nothing arrives; the image stays opaque.
        #expect(red(7, 4) == 0 && red(4, 1) == 0)
        #expect(stride(from: 3, to: blurred.pixels.count, by: 4).allSatisfy { blurred.pixels[$0] == 255 })
        // A transparent point in an opaque field: alpha blurs as a channel (straight).
        var holed = [UInt8](repeating: 255, count: 9 * 9 * 4)
        holed[centre + 3] = 0
        let alpha = try blur.process(try Bitmap(width: 9, height: 9, pixels: holed))
        // 255 · (1 − 0.2527) = 190 across; down, 255 · 0.7473 + 190 · 0.2527 = 238.7 (each
        // pass's sum of whole 255s may fall a hair under 255 and truncate to 254, as thumbor's).
        #expect((237...238).contains(alpha.pixels[centre + 3]))
        #expect(alpha.pixels[3] >= 254)
        #expect(ImageProcessors.ThumborBlur(radius: 0) == nil)
        #expect(ImageProcessors.ThumborBlur(radius: 500)?.radius == 150 && ImageProcessors.ThumborBlur(radius: 500)?.sigma == 500)
    }
}

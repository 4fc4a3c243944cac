import LoupeCodecs
@testable import LoupeProcessing
import LoupeTestSupport
import Testing

/// imgproxy's `pixelate` and `sharpen` filters, checked on pixels.
@Suite struct SharpenPixelateTests {
    /// A seeded noise image, each channel 0...255, alpha opaque unless `alpha` is set.
    static func noise(width: Int, height: Int, seed: UInt64, alpha: Bool = false) throws -> Bitmap {
        var random = SplitMix64(seed: seed)
        return try makeBitmap(width: width, height: height) { _, _ in
            (UInt8(random.next() % 256), UInt8(random.next() % 256), UInt8(random.next() % 256), alpha ? UInt8(random.next() % 256) : 255)
        }
    }

    /// The rounded mean of the pixels at the given columns and rows (each listed as often as
    /// it counts), channel by channel.
    static func mean(_ bitmap: Bitmap, columns: [Int], rows: [Int]) -> [UInt8] {
        var sums = [0, 0, 0, 0]
        for y in rows {
            for x in columns {
                let p = bitmap.pixel(x: x, y: y)
                sums[0] += Int(p.r); sums[1] += Int(p.g); sums[2] += Int(p.b); sums[3] += Int(p.a)
            }
        }
        let n = columns.count * rows.count
        return sums.map { UInt8(($0 + n / 2) / n) }
    }

    static func channels(_ bitmap: Bitmap, _ x: Int, _ y: Int) -> [UInt8] {
        let p = bitmap.pixel(x: x, y: y)
        return [p.r, p.g, p.b, p.a]
    }

    /// imgproxy (libvips): blocks from the top-left corner; a block cut by the right or bottom
    /// edge averages its pixels with their mirror images (the image padded by mirroring).
    @Test func pixelateBlocksAreUniformAveragesAlignedTopLeftWithMirroredEdges() throws {
        let source = try Self.noise(width: 10, height: 7, seed: 3, alpha: true)
        let result = try ImageProcessors.Pixelate(size: 4).process(source)
        #expect((result.width, result.height) == (10, 7))
        // Blocks: columns 0-3, 4-7, 8-9 (padded with 9, 8); rows 0-3, 4-6 (padded with 6).
        let columnBlocks: [(range: ClosedRange<Int>, padded: [Int])] = [(0...3, [0, 1, 2, 3]), (4...7, [4, 5, 6, 7]), (8...9, [8, 9, 9, 8])]
        let rowBlocks: [(range: ClosedRange<Int>, padded: [Int])] = [(0...3, [0, 1, 2, 3]), (4...6, [4, 5, 6, 6])]
        for rows in rowBlocks {
            for columns in columnBlocks {
                let expected = Self.mean(source, columns: columns.padded, rows: rows.padded)
                for y in rows.range {
                    for x in columns.range {
                        #expect(Self.channels(result, x, y) == expected, "(\(x), \(y))")
                    }
                }
            }
        }
    }

    /// imgproxy clamps the block to the image's longer side: one block then, mirrored along the
    /// shorter side.
    @Test func pixelateLargerThanTheImageIsOneBlock() throws {
        let source = try Self.noise(width: 6, height: 4, seed: 5)
        let result = try ImageProcessors.Pixelate(size: 1_000).process(source)
        let expected = Self.mean(source, columns: Array(0..<6), rows: [0, 1, 2, 3, 3, 2])
        for y in 0..<4 { for x in 0..<6 { #expect(Self.channels(result, x, y) == expected) } }
        // A thin image: the padding repeats the two columns back and forth (0 1 1 0 0 1 1 0 0).
        let thin = try Self.noise(width: 2, height: 9, seed: 9)
        let column = try ImageProcessors.Pixelate(size: 50).process(thin)
        let thinExpected = Self.mean(thin, columns: [0, 1, 1, 0, 0, 1, 1, 0, 0], rows: Array(0..<9))
        for y in 0..<9 { for x in 0..<2 { #expect(Self.channels(column, x, y) == thinExpected) } }
    }

    @Test func pixelateOfOneOrZeroChangesNothingAndNegativeIsRefused() throws {
        let source = try Self.noise(width: 9, height: 5, seed: 7)
        #expect(try ImageProcessors.Pixelate(size: 1).process(source) == source)
        #expect(try ImageProcessors.Pixelate(size: 0).process(source) == source)
        #expect(try ImageProcessors.Pixelate(size: 3).process(source) != source)
        #expect(throws: ProcessingError.self) { try ImageProcessors.Pixelate(size: -2).process(source) }
        #expect(ImageProcessors.Pixelate(size: 3).identifier != ImageProcessors.Pixelate(size: 4).identifier)
    }

    /// A vertical edge between two greys, `left` on columns 0..<20 and `right` on 20..<40.
    static func edge(left: UInt8, right: UInt8, alpha: UInt8 = 255) throws -> Bitmap {
        try makeBitmap(width: 40, height: 12) { x, _ in x < 20 ? (left, left, left, alpha) : (right, right, right, alpha) }
    }

    /// libvips' sharpen: the dark side of an edge gets darker and the light side lighter, by at
    /// most 20 and 10 L* units; far from the edge nothing changes.
    @Test func sharpenRaisesEdgeContrastWithinLibvipsLimits() throws {
        let source = try Self.edge(left: 90, right: 170)
        let result = try ImageProcessors.Sharpen(sigma: 1).process(source)
        let darkBefore = source.pixel(x: 19, y: 6), lightBefore = source.pixel(x: 20, y: 6)
        let dark = result.pixel(x: 19, y: 6), light = result.pixel(x: 20, y: 6)
        #expect(dark.r < darkBefore.r && light.r > lightBefore.r, "\(dark) \(light)")
        // Grey stays grey: only the lightness moves.
        #expect(dark.r == dark.g && dark.g == dark.b && light.r == light.g && light.g == light.b)
        let lightness = { (p: (r: UInt8, g: UInt8, b: UInt8, a: UInt8)) in ImageProcessors.Sharpen.lab(p.r, p.g, p.b).x }
        #expect(lightness(darkBefore) - lightness(dark) <= 20.01)
        #expect(lightness(light) - lightness(lightBefore) <= 10.01)
        for y in 0..<12 {
            #expect(result.pixel(x: 2, y: y) == source.pixel(x: 2, y: y))
            #expect(result.pixel(x: 37, y: y) == source.pixel(x: 37, y: y))
            // Every row alike: the edge is vertical.
            #expect(result.pixel(x: 19, y: y) == dark && result.pixel(x: 20, y: y) == light)
        }
    }

    /// sigma 0 is no sharpening (imgproxy adds the filter only above 0); flat areas and gentle
    /// gradients (under libvips' threshold of 2 L* units) are left alone; alpha is kept.
    @Test func sharpenLeavesFlatAreasGradientsAndAlphaAlone() throws {
        let photo = try Self.noise(width: 16, height: 9, seed: 11, alpha: true)
        #expect(try ImageProcessors.Sharpen(sigma: 0).process(photo) == photo)
        let flat = try makeBitmap(width: 20, height: 20) { _, _ in (30, 140, 200, 255) }
        #expect(try ImageProcessors.Sharpen(sigma: 2).process(flat) == flat)
        let gradient = try makeBitmap(width: 60, height: 4) { x, _ in (UInt8(60 + x), UInt8(60 + x), UInt8(60 + x), 255) }
        #expect(try ImageProcessors.Sharpen(sigma: 1.5).process(gradient) == gradient)
        let translucent = try Self.edge(left: 40, right: 200, alpha: 128)
        let sharpened = try ImageProcessors.Sharpen(sigma: 1).process(translucent)
        #expect(sharpened != translucent)
        #expect(sharpened.pixels.enumerated().allSatisfy { $0.offset % 4 != 3 || $0.element == 128 })
        // Premultiplied, as imgproxy sharpens images with alpha: a transparent white neighbour
        // counts as black, so the opaque grey beside it gets lighter, not darker.
        let beside = try makeBitmap(width: 40, height: 12) { x, _ in x < 20 ? (128, 128, 128, 255) : (255, 255, 255, 0) }
        let edgeLit = try ImageProcessors.Sharpen(sigma: 1).process(beside)
        #expect(edgeLit.pixel(x: 19, y: 5).r > 128)
        #expect(edgeLit.pixel(x: 20, y: 5).a == 0)
        #expect(throws: ProcessingError.self) { try ImageProcessors.Sharpen(sigma: -1).process(flat) }
        #expect(throws: ProcessingError.self) { try ImageProcessors.Sharpen(sigma: ImageProcessors.Sharpen.maximumSigma + 1).process(flat) }
    }

    /// `vips_gaussmat`'s mask as `vips_sharpen` asks for it: out to where the Gaussian falls
    /// under 0.2, weights rounded to twentieths.
    @Test func sharpenKernelFollowsLibvipsMask() {
        // sigma 0.5: exp(-1/0.5) = 0.135 < 0.2 at x = 1, which still belongs to the mask.
        let small = ImageProcessors.Sharpen.kernel(sigma: 0.5)
        #expect(small.count == 3)
        #expect(abs(small[1] - 20 / 26) < 1e-6 && abs(small[0] - 3 / 26) < 1e-6)
        // sigma 2: exp(-9/8) = 0.32, exp(-16/8) = 0.135: taps -4...4.
        #expect(ImageProcessors.Sharpen.kernel(sigma: 2).count == 9)
        #expect(abs(ImageProcessors.Sharpen.kernel(sigma: 3.7).reduce(0, +) - 1) < 1e-5)
    }
}

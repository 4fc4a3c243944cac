import Foundation
import Testing
import LoupeCodecs
import LoupeProcessing
import LoupeTestSupport

@Suite struct ResizeTests {
    @Test(arguments: [
        // (source w, h, target w, h, mode, upscale) -> expected output size
        (400, 300, 200, 200, ImageProcessors.Resize.Mode.fit, false, 200, 150),
        (300, 400, 200, 200, .fit, false, 150, 200),
        (100, 50, 200, 200, .fit, false, 100, 50),
        (100, 50, 200, 200, .fit, true, 200, 100),
        (400, 300, 200, 200, .fill, false, 200, 200),
        (100, 50, 200, 200, .fill, false, 50, 50),
        (100, 50, 80, 80, .fill, false, 50, 50),
        (100, 50, 80, 40, .fill, false, 80, 40),
        (100, 50, 300, 100, .fill, false, 100, 33),
        (100, 50, 200, 200, .fill, true, 200, 200),
        (400, 300, 123, 45, .exact, false, 123, 45),
        (100, 50, 200, 20, .exact, false, 100, 20),
        (100, 50, 200, 20, .exact, true, 200, 20),
        (1000, 1, 10, 10, .fit, false, 10, 1),
    ])
    func outputSize(_ sw: Int, _ sh: Int, _ tw: Int, _ th: Int, _ mode: ImageProcessors.Resize.Mode, _ up: Bool, _ ew: Int, _ eh: Int) throws {
        let bitmap = try makeBitmap(width: sw, height: sh) { x, y in (UInt8(x & 255), UInt8(y & 255), 7, 255) }
        let result = try ImageProcessors.Resize(width: tw, height: th, mode: mode, allowsUpscaling: up).process(bitmap)
        #expect(result.width == ew && result.height == eh)
    }

    @Test(arguments: ResamplingFilter.allCases)
    func uniformImageStaysUniform(_ filter: ResamplingFilter) throws {
        let bitmap = try makeBitmap(width: 333, height: 217) { _, _ in (200, 100, 50, 180) }
        for (w, h) in [(64, 64), (300, 200), (7, 3), (500, 400)] {
            for mode in [ImageProcessors.Resize.Mode.fit, .fill, .exact] {
                let result = try ImageProcessors.Resize(width: w, height: h, mode: mode, allowsUpscaling: true, filter: filter).process(bitmap)
                #expect(Set(stride(from: 0, to: result.pixels.count, by: 4).map { result.pixels[$0 ..< $0 + 4] }) == [[200, 100, 50, 180]])
            }
        }
    }

    @Test func transparentPixelsDoNotBleed() throws {
        // Left half: fully transparent red; right half: opaque blue. Straight-alpha filtering
        // would turn the edge purple; premultiplied filtering keeps every visible pixel blue.
        let bitmap = try makeBitmap(width: 200, height: 100) { x, _ in x < 100 ? (255, 0, 0, 0) : (0, 0, 255, 255) }
        let result = try ImageProcessors.Resize(width: 37, height: 19, mode: .exact).process(bitmap)
        var sawEdge = false
        for i in stride(from: 0, to: result.pixels.count, by: 4) where result.pixels[i + 3] > 0 {
            #expect(result.pixels[i] == 0 && result.pixels[i + 2] == 255, "pixel \(i / 4): \(Array(result.pixels[i ..< i + 4]))")
            if result.pixels[i + 3] < 255 { sawEdge = true }
        }
        #expect(sawEdge)
    }

    @Test func fillCropsTheCentre() throws {
        // A 300x100 image: left and right thirds red, centre green. Filling 100x100 keeps green.
        let bitmap = try makeBitmap(width: 300, height: 100) { x, _ in (100..<200).contains(x) ? (0, 255, 0, 255) : (255, 0, 0, 255) }
        let result = try ImageProcessors.Resize(width: 50, height: 50, mode: .fill).process(bitmap)
        #expect(result.width == 50 && result.height == 50)
        // The filter may read past the cut (as Pillow's box does), so look away from its edges.
        for x in [5, 25, 44] {
            let p = result.pixel(x: x, y: 25)
            #expect(p.g == 255 && p.r == 0, "x \(x): \(p)")
        }
        // Without upscaling, a small image is only cropped at scale 1: exact pixels.
        let small = try ImageProcessors.Resize(width: 500, height: 500, mode: .fill).process(bitmap)
        #expect(small.width == 100 && small.height == 100)
        #expect(small == (try ImageProcessors.Crop(x: 100, y: 0, width: 100, height: 100).process(bitmap)))
    }

    @Test func sameSizeIsIdentity() throws {
        let bitmap = try makeBitmap(width: 31, height: 17) { x, y in (UInt8(x * 8), UInt8(y * 15), 3, 255) }
        #expect(try ImageProcessors.Resize(width: 31, height: 17, mode: .exact).process(bitmap) == bitmap)
        #expect(try ImageProcessors.Resize(width: 100, height: 100).process(bitmap) == bitmap)
    }

    @Test func badSizesAreTypedErrors() throws {
        let bitmap = try makeBitmap(width: 4, height: 4) { _, _ in (1, 2, 3, 255) }
        #expect(throws: ProcessingError.invalidSize(width: 0, height: 5)) { try ImageProcessors.Resize(width: 0, height: 5).process(bitmap) }
        #expect(throws: ProcessingError.invalidSize(width: -3, height: 5)) { try ImageProcessors.Resize(width: -3, height: 5).process(bitmap) }
        #expect(throws: ProcessingError.invalidSize(width: 1 << 20, height: 1 << 20)) {
            try ImageProcessors.Resize(width: 1 << 20, height: 1 << 20, allowsUpscaling: true).process(bitmap)
        }
        #expect(throws: ProcessingError.invalidSize(width: .max, height: 2)) { try ImageProcessors.Resize(width: .max, height: 2).process(bitmap) }
    }

    /// Our resize against Pillow's `Image.resize(..., reducing_gap=2.0)` on the same pixels
    /// (corpus photos, opaque and with alpha). Pillow rounds to 8 bits between its two passes
    /// and uses fixed-point weights; we keep floats, so values may differ by a little.
    @Test(arguments: ResamplingFilter.allCases)
    func matchesPillow(_ filter: ResamplingFilter) async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let cases: [(file: String, width: Int, height: Int)] = [
            ("Corpus/skimage/chelsea.png", 256, 170), ("Corpus/skimage/astronaut.png", 100, 100),
            ("Corpus/skimage/coffee.png", 37, 25), ("Corpus/x-image/tux.png", 120, 123),
            ("Corpus/skimage/rocket.jpg", 400, 267),
        ]
        for (file, width, height) in cases {
            let data = try Data(contentsOf: Repository.root.appendingPathComponent(file))
            let bitmap = try ImageDecoder().decode(data, options: DecodingOptions(firstFrameOnly: true)).bitmap
            let input = directory.appendingPathComponent("in.rgba"), output = directory.appendingPathComponent("out.rgba")
            try Data(tightBytes(bitmap)).write(to: input)
            _ = try await PythonReference.run("resize_reference.py", arguments: [
                input.path, "\(bitmap.width)", "\(bitmap.height)", "\(width)", "\(height)", filter.rawValue, output.path,
            ])
            let pillow = try [UInt8](Data(contentsOf: output))
            let ours = try ImageProcessors.Resize(width: width, height: height, mode: .exact, filter: filter).process(bitmap)
            let mine = tightBytes(ours)
            try #require(mine.count == pillow.count)
            // Compare premultiplied values: the colour of an almost transparent pixel is noise.
            var maximum = 0, total = 0
            for i in stride(from: 0, to: mine.count, by: 4) {
                let a = Int(mine[i + 3]), b = Int(pillow[i + 3])
                for c in 0..<3 {
                    let d = abs(Int(mine[i + c]) * a - Int(pillow[i + c]) * b) / 255
                    maximum = max(maximum, d)
                    total += d
                }
                maximum = max(maximum, abs(a - b))
                total += abs(a - b)
            }
            let mean = Double(total) / Double(mine.count)
            // Pillow rounds to 8 bits after its box reduction and between its two passes, and
            // clips there (Lanczos overshoot at hard edges is lost); ours keeps floats, so
            // single values differ by up to about a dozen at such edges and the mean stays
            // under one unit (highest, ~0.6, for the 16× shrink of coffee.png).
            #expect(mean < 0.75 && maximum <= 12, "\(file) \(filter): mean \(mean), max \(maximum)")
        }
    }
}

@Suite struct CropAndOrientationTests {
    @Test func cropCutsAndClips() throws {
        let bitmap = try makeBitmap(width: 10, height: 8) { x, y in (UInt8(x), UInt8(y), 0, 255) }
        let inner = try ImageProcessors.Crop(x: 2, y: 3, width: 4, height: 2).process(bitmap)
        #expect(inner.width == 4 && inner.height == 2)
        #expect(inner.pixel(x: 0, y: 0) == (2, 3, 0, 255) && inner.pixel(x: 3, y: 1) == (5, 4, 0, 255))
        let clipped = try ImageProcessors.Crop(x: -5, y: 6, width: 8, height: 100).process(bitmap)
        #expect(clipped.width == 3 && clipped.height == 2 && clipped.pixel(x: 2, y: 1) == (2, 7, 0, 255))
        #expect(throws: ProcessingError.cropOutsideImage(x: 10, y: 0, width: 5, height: 5)) {
            try ImageProcessors.Crop(x: 10, y: 0, width: 5, height: 5).process(bitmap)
        }
        #expect(throws: ProcessingError.cropOutsideImage(x: .max, y: .max, width: .max, height: .max)) {
            try ImageProcessors.Crop(x: .max, y: .max, width: .max, height: .max).process(bitmap)
        }
        #expect(throws: ProcessingError.cropOutsideImage(x: 0, y: 0, width: 0, height: 3)) {
            try ImageProcessors.Crop(x: 0, y: 0, width: 0, height: 3).process(bitmap)
        }
    }

    @Test func orientationUsesTheCodecsTransform() throws {
        let bitmap = try makeBitmap(width: 3, height: 2) { x, y in (UInt8(x), UInt8(y), 0, 255) }
        let turned = try ImageProcessors.ApplyOrientation(.right).process(bitmap)
        #expect(turned == ExifOrientation.right.apply(to: bitmap))
        #expect(turned.width == 2 && turned.height == 3)
        // Stored bottom-left pixel shows top-left after a clockwise quarter turn.
        #expect(turned.pixel(x: 0, y: 0) == (0, 1, 0, 255))
    }
}

@Suite struct ProcessorIdentityTests {
    @Test func identifiersAreStableAndParameterComplete() {
        #expect(ImageProcessors.Resize(width: 256, height: 256).identifier == "loupe.resize(256x256,fit,noup,lanczos3)")
        #expect(ImageProcessors.Resize(width: 10, height: 20, mode: .fill, allowsUpscaling: true, filter: .catmullRom).identifier
            == "loupe.resize(10x20,fill,up,catmullRom)")
        #expect(ImageProcessors.Crop(x: 1, y: 2, width: 3, height: 4).identifier == "loupe.crop(1,2,3,4)")
        #expect(ImageProcessors.ApplyOrientation(.left).identifier == "loupe.orient(8)")
        #expect(ImageProcessors.Resize(width: 1, height: 2).identifier != ImageProcessors.Resize(width: 2, height: 1).identifier)
    }

    @Test func chainsRunInOrderAndFlatten() throws {
        let chain = ImageProcessors.ApplyOrientation(.right).then(ImageProcessors.Crop(x: 0, y: 0, width: 2, height: 2)).then(ImageProcessors.Resize(width: 1, height: 1, mode: .exact))
        #expect(chain.processors.count == 3)
        #expect(chain.identifier == "loupe.orient(6)|loupe.crop(0,0,2,2)|loupe.resize(1x1,exact,noup,lanczos3)")
        #expect(ImageProcessors.ProcessorChain([chain]).identifier == chain.identifier)
        #expect(ImageProcessors.ProcessorChain([]).identifier == "loupe.identity")

        let bitmap = try makeBitmap(width: 4, height: 2) { x, _ in x < 2 ? (255, 0, 0, 255) : (0, 0, 255, 255) }
        // Turned upright it is 2x4 with the stored left (red) columns on top; the crop keeps those.
        let result = try chain.process(bitmap)
        #expect(result.width == 1 && result.height == 1 && result.pixel(x: 0, y: 0) == (255, 0, 0, 255))
        let steps = try ImageProcessors.Resize(width: 1, height: 1, mode: .exact)
            .process(ImageProcessors.Crop(x: 0, y: 0, width: 2, height: 2).process(ImageProcessors.ApplyOrientation(.right).process(bitmap)))
        #expect(result == steps)
        // Order is part of the identity.
        #expect(ImageProcessors.ProcessorChain([ImageProcessors.Crop(x: 0, y: 0, width: 2, height: 2), ImageProcessors.ApplyOrientation(.right)]).identifier
            != ImageProcessors.ProcessorChain([ImageProcessors.ApplyOrientation(.right), ImageProcessors.Crop(x: 0, y: 0, width: 2, height: 2)]).identifier)
    }
}

/// A bitmap known to be opaque (decoded from a JPEG, or resized from one known opaque) answers
/// `hasTransparency` without reading its pixels; the mark is never wrong and never compared.
@Suite struct KnownOpacityTests {
    @Test func aJPEGAndItsResizesAreKnownOpaqueAndStayRight() throws {
        let decoded = try ImageDecoder().decode(TestImage.jpeg(width: 320, height: 240, seed: 3)).bitmap
        #expect(decoded.isKnownOpaque)
        #expect(!decoded.hasTransparency)
        let resized = try ImageProcessors.Resize(width: 100, height: 100, mode: .fill).process(decoded)
        #expect(resized.isKnownOpaque)
        // What the scan says of the same pixels without the mark.
        let unmarked = try Bitmap(width: resized.width, height: resized.height, pixels: resized.pixels)
        #expect(!unmarked.isKnownOpaque)
        #expect(!unmarked.hasTransparency)
        #expect(unmarked == resized)
    }

    @Test func transparencyIsNeverMarkedAway() throws {
        let translucent = try makeBitmap(width: 64, height: 48) { x, _ in (200, 100, 50, x < 32 ? 0 : 255) }
        #expect(!translucent.isKnownOpaque)
        #expect(translucent.hasTransparency)
        let resized = try ImageProcessors.Resize(width: 32, height: 24, mode: .fit).process(translucent)
        #expect(!resized.isKnownOpaque)
        #expect(resized.hasTransparency)
    }
}

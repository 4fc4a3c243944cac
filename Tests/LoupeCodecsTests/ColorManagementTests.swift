import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// ICC profiles and PNG colour chunks converted to sRGB at decode, against Pillow + ImageCms
/// (lcms2) on the files Scripts/fetch-corpus.sh makes in Corpus/color with jpgicc, ImageMagick
/// and Pillow from one sRGB photo.
@Suite struct ColorManagementTests {
    /// Every tagged file (and the profile-less CMYK one) with the largest per-channel difference
    /// allowed from Pillow's; the mean must be at most 1.5 (the issue's bound). Measured on
    /// Debian 12: 0 for every file (mean 0.0) — the same libjpeg-turbo, libpng, libwebp and
    /// lcms2 with the same intent and flags give the same bytes. JPEGs are allowed one unit for
    /// libjpeg-turbo builds whose SIMD rounds differently.
    static let files: [(path: String, maximum: Int)] = [
        ("color/p3.jpg", 1),
        ("color/adobergb.jpg", 1),
        ("color/prophoto.jpg", 1),
        ("color/srgb-tagged.jpg", 1),
        ("color/grey-lstar.jpg", 1),
        ("color/cmyk-adobe.jpg", 1),
        ("color/ycck.jpg", 1),
        ("color/cmyk-adobe-noprofile.jpg", 1),
        ("color/adobergb.png", 0),
        ("color/prophoto-alpha.png", 0),
        ("color/p3-lossless.webp", 0),
        ("color/p3.webp", 1),
    ]

    @Test func matchesPillowWithImageCms() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-color-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let references = try ColorReference.load(Self.files.map { "Corpus/\($0.path)" }, into: directory)
        try #require(references.count == Self.files.count)
        for (reference, file) in zip(references, Self.files) {
            let image = try decodeCorpus(file.path)
            let raw = try [UInt8](Data(contentsOf: URL(fileURLWithPath: reference.pixels)))
            let expected = try Bitmap(width: reference.width, height: reference.height, pixels: raw)
            #expect(image.bitmap.width == expected.width && image.bitmap.height == expected.height, "\(file.path)")
            let difference = PixelDifference(image.bitmap, expected)
            #expect(difference.mean <= 1.5, "\(file.path): mean difference \(difference.mean)")
            #expect(difference.maximum <= file.maximum, "\(file.path): maximum difference \(difference.maximum)")
            #expect(image.warning == nil, "\(file.path): \(image.warning ?? "")")
        }
    }

    /// Plain CMYK (no Adobe marker) is read uninverted. Pillow assumes Adobe's inversion for
    /// every CMYK JPEG, so it is no reference here: the file holds the same inks as
    /// cmyk-adobe.jpg (Scripts/fetch-corpus.sh), so both must decode alike.
    @Test func plainCMYKIsNotInverted() throws {
        let plain = try decodeCorpus("color/cmyk-plain.jpg").bitmap
        let adobe = try decodeCorpus("color/cmyk-adobe.jpg").bitmap
        let difference = PixelDifference(plain, adobe)
        #expect(difference.mean < 1.5, "mean \(difference.mean), max \(difference.maximum)")
    }

    /// The files were converted from one sRGB photo: managed, each comes back near it;
    /// unmanaged (what Loupe did before), each is visibly off.
    @Test(arguments: ["color/p3.jpg", "color/adobergb.jpg", "color/prophoto.jpg", "color/cmyk-adobe.jpg", "color/ycck.jpg", "color/cmyk-plain.jpg"])
    func managedDecodeRecoversTheSRGBOriginal(path: String) throws {
        let original = try decodeCorpus("color/srgb-untagged.jpg").bitmap
        let managed = try decodeCorpus(path).bitmap
        let unmanaged = try decodeCorpus(path, options: DecodingOptions(colorManagement: .keepSourcePixels)).bitmap
        let managedDifference = PixelDifference(managed, original, ignoringAlpha: true).mean
        let unmanagedDifference = PixelDifference(unmanaged, original, ignoringAlpha: true).mean
        // CMYK round trips lose more (the profile's gamut and black generation), hence 4.
        #expect(managedDifference < 4, "\(path): managed mean difference \(managedDifference)")
        #expect(unmanagedDifference > 2 * managedDifference + 2, "\(path): unmanaged \(unmanagedDifference) vs managed \(managedDifference)")
    }

    @Test func sRGBProfilesAreDetectedAndSkipped() throws {
        let profile = try Corpus.data("color/profiles/sRGB.icc")
        #expect(try LCMSColorEngine().conversion(from: .iccProfile(profile), pixels: .rgba) == nil)
        let adobe = try Corpus.data("color/profiles/AdobeRGB1998.icc")
        #expect(try LCMSColorEngine().conversion(from: .iccProfile(adobe), pixels: .rgba) != nil)
        // The sRGB-tagged JPEG decodes to exactly its stored pixels.
        let tagged = try decodeCorpus("color/srgb-tagged.jpg")
        let stored = try decodeCorpus("color/srgb-tagged.jpg", options: DecodingOptions(colorManagement: .keepSourcePixels))
        #expect(tagged.bitmap == stored.bitmap)
    }

    @Test func damagedProfileIsIgnoredWithAWarning() throws {
        let image = try decodeCorpus("color/damaged-profile.jpg")
        #expect(image.warning?.hasPrefix("ICC profile ignored") == true, "\(image.warning ?? "no warning")")
        let stored = try decodeCorpus("color/damaged-profile.jpg", options: DecodingOptions(colorManagement: .keepSourcePixels))
        #expect(image.bitmap == stored.bitmap)
        #expect(stored.warning == nil)
    }

    @Test func profileOfTheWrongColorSpaceIsIgnoredWithAWarning() throws {
        let grey = try Corpus.data("color/profiles/Gray-CIE_L.icc")
        #expect(throws: ColorProfileError.self) { try LCMSColorEngine().conversion(from: .iccProfile(grey), pixels: .rgba) }
        let cmyk = try Corpus.data("color/profiles/default_cmyk.icc")
        #expect(throws: ColorProfileError.self) { try LCMSColorEngine().conversion(from: .iccProfile(cmyk), pixels: .grey) }
    }

    @Test func greyStaysGrey() throws {
        let image = try decodeCorpus("color/grey-lstar.jpg")
        let stored = try decodeCorpus("color/grey-lstar.jpg", options: DecodingOptions(colorManagement: .keepSourcePixels))
        var changed = 0
        for y in 0..<image.bitmap.height {
            for x in 0..<image.bitmap.width {
                let p = image.bitmap.pixel(x: x, y: y)
                #expect(p.r == p.g && p.g == p.b, "pixel \(x),\(y) is \(p)")
                if p.r != stored.bitmap.pixel(x: x, y: y).r { changed += 1 }
            }
        }
        // The L* curve is not sRGB's: most mid-tones move.
        #expect(changed > image.bitmap.width * image.bitmap.height / 2)
    }

    /// A thumbnail decode (DCT scaling) converts its own pixels the same way.
    @Test func scaledDecodeIsManagedToo() throws {
        let options = DecodingOptions(maxPixelSize: 150)
        let managed = try decodeCorpus("color/p3.jpg", options: options).bitmap
        let original = try decodeCorpus("color/srgb-untagged.jpg", options: options).bitmap
        #expect(managed.width == 150)
        #expect(PixelDifference(managed, original, ignoringAlpha: true).mean < 3)
    }

    /// PNG's gAMA without iCCP or sRGB: 1/2.2 is taken as sRGB (untouched); a linear PNG
    /// (gAMA 1.0) has each value v encoded with the sRGB curve.
    @Test func pngGammaChunks() throws {
        var pixels = [UInt8]()
        for v in 0..<256 { pixels += [UInt8(v), UInt8(v), UInt8(255 - v), 255] }
        let ramp = try Bitmap(width: 256, height: 1, pixels: pixels)
        let png = try ImageEncoder().encode(ramp, as: .png)
        let untouched = try PNGDecoder().decode(insertingGamma(45_455, into: png), options: DecodingOptions()).bitmap
        #expect(untouched == ramp)
        let linear = try PNGDecoder().decode(insertingGamma(100_000, into: png), options: DecodingOptions())
        #expect(linear.warning == nil)
        var worst = 0
        for v in 0..<256 {
            let l = Double(v) / 255
            let encoded = l <= 0.003_130_8 ? 12.92 * l : 1.055 * pow(l, 1 / 2.4) - 0.055
            let expected = Int((encoded * 255).rounded())
            worst = max(worst, abs(Int(linear.bitmap.pixel(x: v, y: 0).r) - expected))
        }
        #expect(worst <= 1, "worst difference from the sRGB curve: \(worst)")
        let unmanaged = try PNGDecoder().decode(insertingGamma(100_000, into: png), options: DecodingOptions(colorManagement: .keepSourcePixels))
        #expect(unmanaged.bitmap == ramp)
    }

    /// `png` with a gAMA chunk (value × 100000) inserted after IHDR.
    private func insertingGamma(_ gamma: UInt32, into png: Data) -> Data {
        let bytes = [UInt8](png)
        let ihdrEnd = 8 + 4 + 4 + 13 + 4
        var chunk: [UInt8] = Array("gAMA".utf8) + withUnsafeBytes(of: gamma.bigEndian, Array.init)
        let crc = crc32(chunk)
        chunk = withUnsafeBytes(of: UInt32(4).bigEndian, Array.init) + chunk + withUnsafeBytes(of: crc.bigEndian, Array.init)
        return Data(bytes[..<ihdrEnd] + chunk + bytes[ihdrEnd...])
    }

    private func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

/// Outputs: no profile by default, the sRGB profile when asked, in every format, readable by
/// Pillow and with the same pixels.
@Suite struct OutputProfileTests {
    @Test func sRGBProfileIsEmbeddedOnlyWhenAsked() throws {
        let bitmap = try gradientBitmap(width: 40, height: 30)
        let alpha = try gradientBitmap(width: 40, height: 30, alpha: true)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-profile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let formats: [(ImageEncoder.Format, Bitmap, String)] = [
            (.jpeg(quality: 90), bitmap, "jpg"), (.png, bitmap, "png"), (.png, alpha, "png"),
            (.webp(quality: 90), bitmap, "webp"), (.webp(quality: 90), alpha, "webp"), (.webpLossless, alpha, "webp"),
            (.avif(quality: 90), bitmap, "avif"),
        ]
        let profile = try #require(ProfileEmbedding.sRGB)
        var paths: [String] = []
        for (n, (format, source, suffix)) in formats.enumerated() {
            let plain = try ImageEncoder().encode(source, as: format)
            let tagged = try ImageEncoder(embedsSRGBProfile: true).encode(source, as: format)
            #expect(tagged.count >= plain.count + profile.count, "\(format): \(plain.count) -> \(tagged.count) bytes")
            // The embedded profile is recognised as sRGB: no transform, the same pixels.
            let a = try ImageDecoder().decode(plain, options: DecodingOptions())
            let b = try ImageDecoder().decode(tagged, options: DecodingOptions())
            #expect(a.bitmap == b.bitmap && b.warning == nil, "\(format)")
            for (data, name) in [(plain, "\(n)-plain.\(suffix)"), (tagged, "\(n)-tagged.\(suffix)")] where suffix != "avif" {
                try data.write(to: directory.appendingPathComponent(name))
                paths.append(directory.appendingPathComponent(name).path)
            }
        }
        // Pillow finds the profile exactly where it was embedded (and none in the plain files).
        let references = try ColorReference.load(paths, into: directory)
        for reference in references {
            #expect(reference.profile == reference.file.contains("-tagged"), "\(reference.file)")
        }
    }
}

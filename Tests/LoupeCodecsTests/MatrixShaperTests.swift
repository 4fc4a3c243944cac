import CLCMS
import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCodecs

/// The conversion of RGB matrix/TRC profiles runs Loupe's own loop instead of lcms2's
/// cmsDoTransform; it must give lcms2's bytes for every one of the 16.7 million colours, and
/// profiles it cannot reproduce must keep lcms2.
@Suite struct MatrixShaperTests {
    /// lcms2's TYPE_RGBA_8, which Swift cannot import (a macro built from macros):
    /// COLORSPACE_SH(PT_RGB) | EXTRA_SH(1) | CHANNELS_SH(3) | BYTES_SH(1).
    static let rgba8 = cmsUInt32Number((4 << 16) | (1 << 7) | (3 << 3) | 1)

    /// Every 8-bit colour, alpha varying, as RGBA.
    static let everyColor: [UInt8] = {
        var pixels = [UInt8](repeating: 0, count: 4 << 24)
        for i in 0..<(1 << 24) {
            pixels[4 * i] = UInt8(truncatingIfNeeded: i >> 16)
            pixels[4 * i + 1] = UInt8(truncatingIfNeeded: i >> 8)
            pixels[4 * i + 2] = UInt8(truncatingIfNeeded: i)
            pixels[4 * i + 3] = UInt8(truncatingIfNeeded: i &* 7)
        }
        return pixels
    }()

    /// What lcms2 alone makes of every colour, with the flags the engine uses.
    static func lcms2Reference(_ profile: cmsHPROFILE) throws -> [UInt8] {
        let srgb = try #require(cmsCreate_sRGBProfile())
        defer { cmsCloseProfile(srgb) }
        let flags = cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION | cmsFLAGS_NOCACHE | cmsFLAGS_COPY_ALPHA)
        let transform = try #require(cmsCreateTransform(profile, rgba8, srgb, rgba8, cmsUInt32Number(INTENT_RELATIVE_COLORIMETRIC), flags))
        defer { cmsDeleteTransform(transform) }
        var pixels = everyColor
        pixels.withUnsafeMutableBytes { cmsDoTransform(transform, $0.baseAddress, $0.baseAddress, 1 << 24) }
        return pixels
    }

    static func converted(_ conversion: LCMSConversion) -> [UInt8] {
        var pixels = everyColor
        pixels.withUnsafeMutableBytes { conversion.apply(to: $0, bytesPerRow: 4 << 12, width: 1 << 12, height: 1 << 12) }
        return pixels
    }

    /// How many bytes differ (memcmp first: the arrays are 64 MB and this runs in debug builds).
    static func differingBytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return max(a.count, b.count) }
        let same = a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in
                guard let p = x.baseAddress, let q = y.baseAddress else { return x.count == y.count }
                return memcmp(p, q, x.count) == 0
            }
        }
        return same ? 0 : zip(a, b).reduce(0) { $0 + ($1.0 == $1.1 ? 0 : 1) }
    }

    @Test(arguments: ["DisplayP3.icc", "AdobeRGB1998.icc", "ProPhotoRGB.icc"])
    func cameraAndPhoneProfilesTakeTheFastPathWithLcms2sBytes(file: String) throws {
        let data = try Corpus.data("color/profiles/\(file)")
        let conversion = try #require(try LCMSColorEngine().conversion(from: .iccProfile(data), pixels: .rgba) as? LCMSConversion)
        #expect(conversion.isMatrixShaper)
        let profile = try #require(data.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { cmsCloseProfile(profile) }
        let reference = try Self.lcms2Reference(profile)
        let ours = Self.converted(conversion)
        #expect(Self.differingBytes(ours, reference) == 0)
        // Not the identity: P3's pure green is outside sRGB.
        #expect(ours[4 * 0x00FF00 + 1] == 255 && ours[4 * 0x00FF00] == 0 && ours != Self.everyColor)
    }

    /// PNG gAMA/cHRM and CICP colours build their profile in lcms2 and go the same way.
    @Test func pngChromaticitiesTakeTheFastPath() throws {
        let p3: [Double] = [0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060]
        let conversion = try #require(try LCMSColorEngine().conversion(from: .pngGamma(1 / 2.2, chromaticities: p3), pixels: .rgba) as? LCMSConversion)
        #expect(conversion.isMatrixShaper)
    }

    /// A profile whose black is not zero: black-point compensation moves it, which the fast
    /// loop does not do, so the probe at creation keeps lcms2 — and the bytes are lcms2's.
    @Test func aProfileTheLoopCannotReproduceKeepsLcms2() throws {
        // sRGB's primaries with a curve that lifts black to 10 %.
        let white = cmsCIExyY(x: 0.3127, y: 0.3290, Y: 1)
        var primaries = cmsCIExyYTRIPLE(Red: cmsCIExyY(x: 0.64, y: 0.33, Y: 1), Green: cmsCIExyY(x: 0.30, y: 0.60, Y: 1), Blue: cmsCIExyY(x: 0.15, y: 0.06, Y: 1))
        // Type 2 (CIE 122-1966): Y = (aX + b)^g for X >= -b/a; a = 0.9, b = 0.1 lifts 0 to 0.1^2.2.
        let parameters: [cmsFloat64Number] = [2.2, 0.9, 0.1]
        let curve = try #require(parameters.withUnsafeBufferPointer { cmsBuildParametricToneCurve(nil, 2, $0.baseAddress) })
        defer { cmsFreeToneCurve(curve) }
        var curves: [OpaquePointer?] = [curve, curve, curve]
        let built = try #require(withUnsafePointer(to: white) { w in
            curves.withUnsafeMutableBufferPointer { cmsCreateRGBProfile(w, &primaries, $0.baseAddress) }
        })
        defer { cmsCloseProfile(built) }
        var size: cmsUInt32Number = 0
        try #require(cmsSaveProfileToMem(built, nil, &size) != 0 && size > 0)
        var bytes = [UInt8](repeating: 0, count: Int(size))
        try #require(cmsSaveProfileToMem(built, &bytes, &size) != 0)
        let conversion = try #require(try LCMSColorEngine().conversion(from: .iccProfile(Data(bytes)), pixels: .rgba) as? LCMSConversion)
        #expect(!conversion.isMatrixShaper)
        // The reference reads the same bytes: the saved profile's s15Fixed16 colorants differ
        // from the built one's doubles in the last bits.
        let saved = try #require(bytes.withUnsafeBytes { cmsOpenProfileFromMem($0.baseAddress, cmsUInt32Number($0.count)) })
        defer { cmsCloseProfile(saved) }
        #expect(Self.differingBytes(Self.converted(conversion), try Self.lcms2Reference(saved)) == 0)
    }
}

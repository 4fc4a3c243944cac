import CLoupeCodecs
import Foundation
import LoupeCaching

/// `ColorConverting` with lcms2. Building a transform parses the profile and precomputes
/// tables, which costs more than converting a thumbnail, so the last few transforms are kept:
/// a batch of photos from one camera or phone shares one profile.
final class LCMSColorEngine: ColorConverting {
    /// The engine the decoders use.
    static let shared = LCMSColorEngine()

    /// A profile's bytes are kept as an array, not as `Data`: `Data` keeps its storage behind
    /// a tagged pointer that LeakSanitizer cannot follow, so a fuzzing run reported the cached
    /// profiles as leaked at exit.
    private struct Key: Hashable {
        let profile: [UInt8]
        let otherSource: ColorSource?
        let pixels: SourcePixels

        init(_ source: ColorSource, pixels: SourcePixels) {
            if case let .iccProfile(data) = source {
                profile = [UInt8](data)
                otherSource = nil
            } else {
                profile = []
                otherSource = source
            }
            self.pixels = pixels
        }
    }

    /// nil values remember sRGB profiles (no conversion needed) and errors, so neither is
    /// parsed twice either.
    private let cache = Locked<[Key: Result<LCMSConversion?, ColorProfileError>]>([:])
    private static let cacheCapacity = 16

    func conversion(from source: ColorSource, pixels: SourcePixels) throws(ColorProfileError) -> (any PixelConversion)? {
        let key = Key(source, pixels: pixels)
        if let cached = cache.withLock({ $0[key] }) { return try cached.get() }
        let result = Result { () throws(ColorProfileError) in try LCMSColorEngine.make(source, pixels: pixels) }
        cache.withLock { cache in
            // Dropping everything when full is enough for a cache whose usual size is one.
            if cache.count >= LCMSColorEngine.cacheCapacity { cache.removeAll(keepingCapacity: true) }
            cache[key] = result
        }
        return try result.get()
    }

    private static func make(_ source: ColorSource, pixels: SourcePixels) throws(ColorProfileError) -> LCMSConversion? {
        var message = CMessage()
        switch source {
        case let .iccProfile(profile):
            let layout: Int32 = switch pixels {
            case .rgba: LC_PIXELS_RGBA
            case .grey: LC_PIXELS_GREY
            case .cmyk(inverted: false): LC_PIXELS_CMYK
            case .cmyk(inverted: true): LC_PIXELS_CMYK_INVERTED
            }
            let outcome: Result<OpaquePointer?, ColorProfileError> = profile.withUnsafeBytes { raw in
                message.withPointer { text in
                    let bytes = raw.baseAddress?.assumingMemoryBound(to: UInt8.self)
                    if pixels == .rgba {
                        // Only RGB profiles can be sRGB; grey and CMYK always convert.
                        var space: Int32 = 0, srgb: Int32 = 0
                        guard lc_color_profile_inspect(bytes, raw.count, &space, &srgb, text) == LC_OK else {
                            return .failure(ColorProfileError(message: "ICC profile ignored: \(CMessage.string(text))"))
                        }
                        if srgb != 0 { return .success(nil) }
                    }
                    guard let handle = lc_color_transform_create(bytes, raw.count, layout, text) else {
                        return .failure(ColorProfileError(message: "ICC profile ignored: \(CMessage.string(text))"))
                    }
                    return .success(handle)
                }
            }
            return try outcome.get().map(LCMSConversion.init)
        case let .pngGamma(gamma, chromaticities):
            let handle: OpaquePointer? = message.withPointer { text in
                if let chromaticities, chromaticities.count == 8 {
                    return chromaticities.withUnsafeBufferPointer {
                        lc_color_transform_create_rgb(gamma, $0.baseAddress, LC_TRANSFER_GAMMA, text)
                    }
                }
                return lc_color_transform_create_rgb(gamma, nil, LC_TRANSFER_GAMMA, text)
            }
            guard let handle else { throw ColorProfileError(message: "PNG gAMA/cHRM ignored: \(message.text)") }
            return LCMSConversion(handle)
        case let .cicp(primaries, transfer):
            guard let chromaticities = CICP.chromaticities[primaries], let curve = CICP.transfer(transfer) else {
                throw ColorProfileError(message: "CICP colour primaries \(primaries) with transfer \(transfer) not supported; shown as sRGB")
            }
            let handle: OpaquePointer? = message.withPointer { text in
                chromaticities.withUnsafeBufferPointer { lc_color_transform_create_rgb(curve.gamma, $0.baseAddress, curve.kind, text) }
            }
            guard let handle else { throw ColorProfileError(message: "CICP colour ignored: \(message.text)") }
            return LCMSConversion(handle)
        }
    }
}

/// One lcms2 transform to sRGB.
// @unchecked Sendable: `handle` is immutable after init and freed only in deinit, and the
// transform is built with cmsFLAGS_NOCACHE (color.c), which leaves cmsDoTransform without any
// per-transform mutable state (its 16-bit twin too); the matrix/TRC tables (color.c) are filled before the handle is
// returned and only read afterwards. So concurrent `apply` calls are safe.
final class LCMSConversion: PixelConversion, @unchecked Sendable {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { lc_color_transform_destroy(handle) }

    /// Whether the conversion runs the matrix/TRC loop (proved equal to lcms2's bytes on a
    /// probe set when it was built) instead of lcms2's own cmsDoTransform.
    var isMatrixShaper: Bool { lc_color_transform_is_matrix_shaper(handle) != 0 }

    func apply(to pixels: UnsafeMutableRawBufferPointer, bytesPerRow: Int, width: Int, height: Int) {
        guard let base = pixels.baseAddress, pixels.count >= bytesPerRow * height else { return }
        lc_color_transform_apply(handle, base.assumingMemoryBound(to: UInt8.self), bytesPerRow, UInt32(width), UInt32(height))
    }

    func applyDeep(to samples: UnsafeMutableBufferPointer<UInt16>) -> Bool {
        guard let base = samples.baseAddress else { return false }
        return lc_color_transform_apply16(handle, base, samples.count / 4) != 0
    }
}

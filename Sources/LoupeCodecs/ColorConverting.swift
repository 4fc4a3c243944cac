/// The seam between decoders and a colour engine (lcms2 in `LCMSColorEngine`): given what a
/// header says about its colours, produce the conversion of its pixels to sRGB.
protocol ColorConverting: Sendable {
    /// The conversion of `pixels` described by `source` to sRGB; nil when they already are sRGB
    /// (detected, so converting costs nothing). Throws `ColorProfileError` for a profile that
    /// cannot be used: unreadable, or of a colour space other than the pixels'.
    func conversion(from source: ColorSource, pixels: SourcePixels) throws(ColorProfileError) -> (any PixelConversion)?
}

/// A prepared conversion to sRGB, applied in place to an RGBA8 buffer. Safe to share; a class,
/// so a conversion handed to a caller compares by identity.
protocol PixelConversion: AnyObject, Sendable {
    /// Converts `height` rows of `width` pixels, `bytesPerRow` apart, in place.
    func apply(to pixels: UnsafeMutableRawBufferPointer, bytesPerRow: Int, width: Int, height: Int)
    /// Converts tightly packed RGBA16 samples in place; false, leaving them untouched, when
    /// this conversion has no 16-bit form.
    func applyDeep(to samples: UnsafeMutableBufferPointer<UInt16>) -> Bool
}

/// Why a colour profile was ignored; becomes the decoded image's warning, never a failure.
struct ColorProfileError: Error, Equatable, Sendable {
    /// The colour engine's message.
    let message: String
}

/// How to decode: target size, orientation, frames, limits, colour management and bit depth.
public struct DecodingOptions: Sendable, Equatable {
    /// The longest side the caller needs, in pixels. JPEG uses libjpeg's DCT scaling (N/8,
    /// N in 1...8) to decode straight to the smallest size whose longest side is still at least
    /// this, so a thumbnail never materializes the full image; still WebP scales inside the
    /// decoder to fit this size. PNG and GIF decode at full size (their compression offers no
    /// shortcut); resizing to an exact size is the processing layer's job. nil = full size.
    public var maxPixelSize: Int?
    /// Rotate/flip the result upright according to the EXIF orientation.
    public var appliesOrientation: Bool
    /// Decode only the first frame of an animation.
    public var firstFrameOnly: Bool
    /// Decode at most this many frames of an animation and drop the rest, as imgproxy's
    /// `max_animation_frames` does; the limits then apply to the frames kept. nil: every frame.
    public var maximumFrames: Int?
    /// Size and frame limits checked before allocation.
    public var limits: DecodingLimits
    /// Whether colours are converted to sRGB through the file's ICC profile or PNG colour
    /// chunks (the default), or kept as stored.
    public var colorManagement: ColorManagement
    /// How 16-bit samples become 8-bit ones: rounded (the default), or their high byte as
    /// Pillow does, for colours that must equal Python `colorthief`'s.
    public var sixteenBitReduction: SixteenBitReduction
    /// Whether a 16-bit PNG or TIFF keeps its 16-bit samples beside the 8-bit ones
    /// (``Bitmap/deepSamples``), for a result written at 16 bits; off by default, since they
    /// take twice the memory of the 8-bit pixels again. Their 8-bit pixels are then rounded.
    public var keepsDeepSamples = false
    /// The smallest share of the source's size the caller needs on both sides (0 < scale ≤ 1):
    /// JPEG decodes at the smallest N/8 scale not below it (and not below what `maxPixelSize`
    /// asks), a still WebP at that share exactly (rounded up), for a caller that scales the
    /// image down by a known factor whatever the box's shape. Other formats decode at full
    /// size. nil = no such need; 1 (or any value not above 0 and below 1) = full size.
    public var minimumScale: Double?
    /// Decode the file's embedded thumbnail as the image when it has one (HEIF and AVIF
    /// thumbnail items), whatever its size, as imgproxy's `enforce_thumbnail` does: a service
    /// whose sources carry a camera's preview can answer from it at a fraction of the cost.
    /// The header decision, the limits and the metadata see the thumbnail's size. Files
    /// without one decode as usual.
    public var usesEmbeddedThumbnail = false

    /// Creates options; the defaults decode every frame at full size, converted to sRGB.
    public init(maxPixelSize: Int? = nil, appliesOrientation: Bool = false, firstFrameOnly: Bool = false,
                limits: DecodingLimits = DecodingLimits(), colorManagement: ColorManagement = .convertToSRGB,
                sixteenBitReduction: SixteenBitReduction = .rounded, minimumScale: Double? = nil) {
        self.maxPixelSize = maxPixelSize
        self.appliesOrientation = appliesOrientation
        self.firstFrameOnly = firstFrameOnly
        self.limits = limits
        self.colorManagement = colorManagement
        self.sixteenBitReduction = sixteenBitReduction
        self.minimumScale = minimumScale
    }

    /// How many of an animation's `available` frames to decode.
    func framesToDecode(of available: Int) -> Int {
        firstFrameOnly ? 1 : min(available, max(1, maximumFrames ?? available))
    }
}

/// What the header of an encoded image says, read without decoding pixels.
public struct ImageMetadata: Sendable, Equatable {
    /// The sniffed format.
    public var format: ImageFormat
    /// Stored width in pixels, before any orientation is applied.
    public var width: Int
    /// Stored height in pixels, before any orientation is applied.
    public var height: Int
    /// EXIF orientation (JPEG APP1, PNG eXIf, WebP EXIF chunk); `.up` when absent.
    public var orientation: ExifOrientation
    /// Number of frames: 1 for still images.
    public var frameCount: Int
    /// Animation loop count where the file gives one (0 = forever); nil for still images.
    public var loopCount: Int?
    /// Progressive JPEG, or interlaced PNG or GIF.
    public var isProgressive: Bool
    /// Whether the file stores grey samples: a grey or grey-with-alpha PNG, a one-component
    /// JPEG, a MinIsBlack or MinIsWhite TIFF, a grey JPEG XL. Decoded to RGBA like any other;
    /// a result made from it can be written grey again (``ImageEncoder/keepsGrey``).
    public var isGrey: Bool
    /// Whether the file stores 16-bit samples a decode can keep (``DecodingOptions/keepsDeepSamples``):
    /// a 16-bit PNG or TIFF.
    public var hasDeepSamples = false

    /// Creates metadata; decoders fill it from the file header.
    public init(format: ImageFormat, width: Int, height: Int, orientation: ExifOrientation = .up,
                frameCount: Int = 1, loopCount: Int? = nil, isProgressive: Bool = false, isGrey: Bool = false) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
        self.frameCount = frameCount
        self.loopCount = loopCount
        self.isProgressive = isProgressive
        self.isGrey = isGrey
    }

    /// Pixel count of one frame, for limit checks (cannot overflow: both sides come from
    /// 32-bit header fields).
    var pixelCount: Int { width * height }
}

/// The output-format policy: which formats Loupe writes, which keep an animation's frames, the
/// format a result gets when none is asked, the encoder settings, file extension and media type
/// for each. The one place the command-line tool, the service and the pipeline's stored copies
/// take these answers from, so that they cannot drift apart.
extension ImageFormat {
    /// Whether ``ImageEncoder`` writes this format: JPEG, PNG, WebP, GIF and AVIF. HEIF and
    /// JPEG XL are read only.
    public var isWritable: Bool {
        switch self {
        case .jpeg, .png, .webp, .gif, .avif: true
        case .heif, .jxl: false
        }
    }

    /// Whether a result written in this format keeps an animation's frames, delays and loop
    /// count (GIF and WebP); the others keep its first frame.
    public var animates: Bool { self == .gif || self == .webp }

    /// Whether the format is written with a quality (JPEG, WebP, AVIF): the lossy ones, which
    /// can be made smaller by lowering it.
    public var isLossy: Bool { self == .jpeg || self == .webp || self == .avif }

    /// The format of a result when none is asked for: the source's own where Loupe writes it
    /// (GIF stays GIF, animated or not); for HEIF and JPEG XL, which Loupe does not write and
    /// most browsers cannot show, JPEG, or PNG when the image has transparency, which JPEG
    /// would lose. This is imgproxy's rule, so the service and the command-line tool agree.
    public static func defaultOutput(forSource source: ImageFormat, transparent: Bool) -> ImageFormat {
        source.isWritable ? source : fallbackOutput(transparent: transparent)
    }

    /// The format of a result whose source format is not kept (Loupe does not write it, or a
    /// stored copy whose only job is to be read back): JPEG, or PNG when the image has
    /// transparency, which JPEG would lose.
    public static func fallbackOutput(transparent: Bool) -> ImageFormat { transparent ? .png : .jpeg }

    /// The encoder settings that write this format at `quality` (used by the lossy formats;
    /// ignored by PNG and GIF). Throws `ImageCodecError.invalidBitmap` for a format Loupe does
    /// not write (``isWritable``): a caller that picks one has a bug to report, not a substitute
    /// to write silently.
    public func encoderFormat(quality: Int) throws(ImageCodecError) -> ImageEncoder.Format {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .gif: .gif
        case .avif: .avif(quality: quality)
        case .heif, .jxl: throw .invalidBitmap("Loupe does not write \(self)")
        }
    }

    /// The usual file extension, without the dot (`jpg` for JPEG, else the format's name).
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The media type (`Content-Type`): `image/` and the format's name for every format here.
    public var mimeType: String { "image/" + rawValue }
}

/// The output-format policy: which formats Loupe writes, which keep an animation's frames, the
/// format a result gets when none is asked, the encoder settings, file extension and media type
/// for each. The one place the command-line tool, the service and the pipeline's stored copies
/// take these answers from, so that they cannot drift apart.
extension ImageFormat {
    /// Whether ``ImageEncoder`` writes this format: every format Loupe reads (HEIF as HEIC,
    /// ICO as a PNG in an icon) but SVG, which is drawn, not written (a service's SVG result
    /// is its source document, sanitised: ``SVGSanitizer``).
    public var isWritable: Bool { self != .svg }

    /// Whether a result written in this format keeps an animation's frames, delays and loop
    /// count (GIF and WebP); the others keep its first frame.
    public var animates: Bool { self == .gif || self == .webp }

    /// Whether the format is written with a quality (JPEG, WebP, AVIF, JPEG XL, HEIC): the lossy
    /// ones, which can be made smaller by lowering it.
    public var isLossy: Bool { self == .jpeg || self == .webp || self == .avif || self == .jxl || self == .heif }

    /// Whether a result with no format asked keeps this source format: JPEG, PNG, WebP, GIF and
    /// AVIF, which browsers show. HEIF, JPEG XL, TIFF, BMP, ICO and SVG sources become JPEG, or
    /// PNG with transparency, as in imgproxy, whose preferred formats (JPEG, PNG, GIF) none of
    /// them is (an SVG source is rendered only when its result is not SVG).
    public var isKeptWhenUnnamed: Bool { self == .jpeg || self == .png || self == .webp || self == .gif || self == .avif }

    /// The largest width or height a result in this format may have: JPEG, WebP and GIF keep
    /// sizes in 16, 14 and 16 bits; HEIC is refused past 16,384 as imgproxy refuses it; ICO is
    /// an icon of at most 256. Refusing in the encoder is clearer than failing deep in C.
    public var maximumSide: Int {
        switch self {
        case .jpeg: 65_500
        case .png, .tiff, .bmp, .svg: Int(Int32.max)
        case .webp: 16_383
        case .avif: 65_536
        case .heif: 16_384
        case .jxl: 1 << 30
        case .gif: 65_535
        case .ico: 256
        }
    }

    /// The format of a result when none is asked for: the source's own where it is one of
    /// ``isKeptWhenUnnamed`` (GIF stays GIF, animated or not); for the others, JPEG, or PNG
    /// when the image has transparency, which JPEG would lose. This is imgproxy's rule, so the
    /// service and the command-line tool agree.
    public static func defaultOutput(forSource source: ImageFormat, transparent: Bool) -> ImageFormat {
        source.isKeptWhenUnnamed ? source : fallbackOutput(transparent: transparent)
    }

    /// The format of a result whose source format is not kept (Loupe does not write it, or a
    /// stored copy whose only job is to be read back): JPEG, or PNG when the image has
    /// transparency, which JPEG would lose.
    public static func fallbackOutput(transparent: Bool) -> ImageFormat { transparent ? .png : .jpeg }

    /// The encoder settings that write this format at `quality` (used by the lossy formats;
    /// ignored by the others).
    public func encoderFormat(quality: Int) throws(ImageCodecError) -> ImageEncoder.Format {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .png: .png
        case .webp: .webp(quality: quality)
        case .gif: .gif
        case .avif: .avif(quality: quality)
        case .jxl: .jxl(quality: quality)
        case .heif: .heic(quality: quality)
        case .tiff: .tiff
        case .bmp: .bmp
        case .ico: .ico
        case .svg: throw .invalidBitmap("SVG is not written: an SVG result is its source, sanitised")
        }
    }

    /// The usual file extension, without the dot (`jpg` for JPEG, else the format's name).
    public var fileExtension: String { self == .jpeg ? "jpg" : rawValue }

    /// The media type (`Content-Type`): `image/` and the format's name, except ICO's
    /// `image/x-icon` and SVG's `image/svg+xml` (what imgproxy and browsers use).
    public var mimeType: String {
        switch self {
        case .ico: "image/x-icon"
        case .svg: "image/svg+xml"
        default: "image/" + rawValue
        }
    }
}

/// How a result's format and quality are chosen, given before the image is known (a URL, a
/// command line, `Accept`) and decided once the image is (``decide(source:transparent:animated:)``):
/// the one decision the service, `loupe fetch` and the pipeline's stored copies make.
public struct OutputChoice: Sendable, Hashable {
    /// The format asked for by name (`loupe fetch --format`, an imgproxy URL's `format`):
    /// written whatever the image unless an `enforced` format takes its place; an animation
    /// keeps its first frame in a format that cannot animate, as in imgproxy.
    public var named: ImageFormat?
    /// The formats the client accepts beyond the source's rule, best first (the service's
    /// `Accept` negotiation), for a result with no `named` format: the first that can hold the
    /// image is taken, so an animation skips the ones that cannot animate (an animation
    /// negotiated to AVIF becomes WebP when WebP is accepted too); with none that can, the
    /// source's rule applies.
    public var accepted: [ImageFormat]
    /// The formats written even over a `named` one, best first (imgproxy's `IMGPROXY_ENFORCE_*`
    /// for a client that accepts them): the first that can hold the image is taken, else the
    /// named format. Without a named format, `accepted` decides (it lists these too).
    public var enforced: [ImageFormat]
    /// Whether a result with no named or accepted format keeps its source's format where Loupe
    /// writes it (``ImageFormat/defaultOutput(forSource:transparent:)``, imgproxy's rule); else
    /// it is JPEG, or PNG with transparency (``ImageFormat/fallbackOutput(transparent:)``), for
    /// a copy that is only read back.
    public var keepsSourceFormat: Bool
    /// The quality of a lossy format not in `qualities`.
    public var quality: Int
    /// The quality of each lossy format that has its own.
    public var qualities: [ImageFormat: Int]

    /// Creates a choice; by default the source's rule at `quality`.
    public init(named: ImageFormat? = nil, accepted: [ImageFormat] = [], enforced: [ImageFormat] = [], keepsSourceFormat: Bool = true,
                quality: Int, qualities: [ImageFormat: Int] = [:]) {
        self.named = named
        self.accepted = accepted
        self.enforced = enforced
        self.keepsSourceFormat = keepsSourceFormat
        self.quality = quality
        self.qualities = qualities
    }

    /// The format and quality of a result made from a `source` image (`transparent`: its first
    /// frame has transparency; `animated`: it has more than one frame).
    public func decide(source: ImageFormat, transparent: Bool, animated: Bool) -> OutputDecision {
        let holds = { (format: ImageFormat) in !animated || format.animates }
        let format = named.map { named in enforced.first(where: holds) ?? named }
            ?? accepted.first(where: holds)
            ?? (keepsSourceFormat ? .defaultOutput(forSource: source, transparent: transparent) : .fallbackOutput(transparent: transparent))
        return OutputDecision(format: format, quality: qualities[format] ?? quality)
    }

    /// Whether the result may keep an animation's frames, known before the image is: false only
    /// for a named format that cannot animate and nothing enforced over it, so that frames are
    /// decoded only to be kept (and whether the image is animated is known when an enforced
    /// format skips animations).
    public var mayKeepFrames: Bool { named.map { $0.animates || !enforced.isEmpty } ?? true }

    /// The format the result most likely gets, known before the image is (for estimates):
    /// the first enforced or the named, else the first accepted; `nil` for the source's rule.
    public var likelyFormat: ImageFormat? { named.map { enforced.first ?? $0 } ?? accepted.first }

    /// The choice's format inputs as text (`jpeg`, `avif+webp`, `webp>jpeg`, `source`): two
    /// choices that can decide differently for one image have different keys, for a cache
    /// keyed by results. Qualities are not in it.
    public var formatKey: String {
        if let named {
            return enforced.isEmpty ? named.rawValue : enforced.map(\.rawValue).joined(separator: "+") + ">" + named.rawValue
        }
        let stored = keepsSourceFormat ? "source" : "fallback"
        return accepted.isEmpty ? stored : accepted.map(\.rawValue).joined(separator: "+")
    }
}

/// What an ``OutputChoice`` decided for one image: the format and the quality to write it at.
public struct OutputDecision: Sendable, Hashable {
    /// The format to write.
    public var format: ImageFormat
    /// The quality (used by the lossy formats; ignored by PNG and GIF).
    public var quality: Int

    /// A decision to write `format` at `quality`.
    public init(format: ImageFormat, quality: Int) {
        self.format = format
        self.quality = quality
    }

    /// The encoder settings for this decision; throws for a format Loupe does not write
    /// (``ImageFormat/encoderFormat(quality:)``).
    public func encoderFormat() throws(ImageCodecError) -> ImageEncoder.Format {
        try format.encoderFormat(quality: quality)
    }
}

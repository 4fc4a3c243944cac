import CLoupeCodecs
import Foundation

/// Encodes a `Bitmap` for thumbnails on disk and CLI output. Outputs carry pixels only: no
/// EXIF, GPS or other metadata (orientation is applied before encoding) and, by default, no
/// colour profile — decoded pixels are sRGB, which is what a file without one means.
public struct ImageEncoder: Sendable {
    /// The output format and its settings.
    public enum Format: Sendable, Equatable {
        /// JPEG at `quality` 1...100 (alpha is dropped; JPEG has none). Progressive files are
        /// slightly smaller for photos and render coarse-to-fine.
        case jpeg(quality: Int, progressive: Bool = false)
        /// PNG, lossless, RGBA when the bitmap has transparency and RGB otherwise.
        case png
        /// Lossy WebP at `quality` 0...100.
        case webp(quality: Int)
        /// Lossless WebP (exact RGB is kept even under transparent pixels).
        case webpLossless
        /// AVIF at `quality` 0...100 (8-bit 4:2:0, tagged sRGB), encoded by libaom at `speed`
        /// 0 (slowest, smallest) ... 10; 8 suits thumbnails made on request.
        case avif(quality: Int, speed: Int = 8)
        /// GIF: up to 256 colours per frame chosen by libimagequant and dithered, one-bit
        /// transparency (alpha under half is transparent). Animations keep their frames.
        case gif
        /// JPEG XL, lossy at `quality` 0...100 (cjxl's mapping to a distance), libjxl `effort`
        /// 1 (fastest) ... 9; imgproxy's default effort is 4.
        case jxl(quality: Int, effort: Int = 4)
        /// HEIC: HEVC by libheif's encoder (x265 in Debian), 8 bits, at `quality` 0...100.
        case heic(quality: Int)
        /// TIFF: 8-bit RGB or RGBA (when the bitmap has transparency), Deflate-compressed, lossless.
        case tiff
        /// BMP: 24 bits, or 32 with an alpha mask (a V4 header) when the bitmap has transparency.
        case bmp
        /// ICO: one PNG image in an icon directory, as imgproxy writes it; at most 256 pixels a
        /// side (a larger bitmap is refused: callers fit results to ``ImageFormat/maximumSide``).
        case ico

        /// The container format this produces.
        public var imageFormat: ImageFormat {
            switch self {
            case .jpeg: .jpeg
            case .png: .png
            case .webp, .webpLossless: .webp
            case .avif: .avif
            case .gif: .gif
            case .jxl: .jxl
            case .heic: .heif
            case .tiff: .tiff
            case .bmp: .bmp
            case .ico: .ico
            }
        }

        /// The largest width or height the format stores (``ImageFormat/maximumSide``).
        var maximumSide: Int { imageFormat.maximumSide }
    }

    /// Whether outputs embed the sRGB ICC profile (lcms2's, under 1 KB), for viewers that treat untagged
    /// images as something other than sRGB.
    public var embedsSRGBProfile: Bool

    /// Whether PNG, JPEG and TIFF write a bitmap whose every pixel is grey (``Bitmap/isGrey``)
    /// as a grey image (PNG and TIFF with alpha when it has transparency), as imgproxy keeps a
    /// grey source's colour space: set for a grey source's result. Off, they write RGB(A).
    /// The other formats have no grey mode here.
    public var keepsGrey = false

    /// Whether PNG writes a bitmap's 16-bit samples (``Bitmap/deepSamples``) as a 16-bit file
    /// (RGB16, RGBA16, or grey at 16 bits with ``keepsGrey``); off, or for a bitmap without
    /// them, every format writes 8 bits. The other formats always write 8 bits here.
    public var keepsDeepSamples = false

    /// Creates an encoder that embeds no profile.
    public init() {
        self.embedsSRGBProfile = false
    }

    /// Creates an encoder that embeds the sRGB profile or not, and (`keepsGrey`) writes a grey
    /// bitmap as grey where its format can.
    public init(embedsSRGBProfile: Bool, keepsGrey: Bool = false, keepsDeepSamples: Bool = false) {
        self.embedsSRGBProfile = embedsSRGBProfile
        self.keepsGrey = keepsGrey
        self.keepsDeepSamples = keepsDeepSamples
    }

    /// Encodes `bitmap` as `format`. Throws `ImageCodecError.invalidBitmap` for an impossible
    /// request (size beyond the format, quality out of range) and `.encodingFailed` with the
    /// library's message otherwise.
    public func encode(_ bitmap: Bitmap, as format: Format) throws -> Data {
        let maxSide = format.maximumSide
        guard bitmap.width <= maxSide, bitmap.height <= maxSide else {
            throw ImageCodecError.invalidBitmap("\(bitmap.width)x\(bitmap.height) exceeds \(format.imageFormat)'s \(maxSide) pixels per side")
        }
        switch format {
        case .bmp: return BMPEncoder.bmp(bitmap)
        case .ico:
            // An icon's PNG stays RGBA, the form icon readers expect.
            return BMPEncoder.ico(png: try ImageEncoder(embedsSRGBProfile: embedsSRGBProfile).encode(bitmap, as: .png), width: bitmap.width,
                                  height: bitmap.height)
        default: break
        }
        var message = CMessage()
        let profile = embedsSRGBProfile ? ProfileEmbedding.sRGB : nil
        if embedsSRGBProfile, profile == nil { throw ImageCodecError.encodingFailed(format.imageFormat, message: "no sRGB profile from lcms2") }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let width = UInt32(bitmap.width), height = UInt32(bitmap.height), stride = bitmap.bytesPerRow
        // Not with the sRGB profile, an RGB profile that a grey image may not carry.
        // The 16-bit samples, where they are written: their own grey and alpha checks, since
        // 8-bit pixels can be grey or opaque where the deep ones are not.
        let deep = format == .png && keepsDeepSamples ? bitmap.deepSamples : nil
        let grey: Int32 = switch format {
        case .png where deep != nil: keepsGrey && profile == nil && bitmap.isDeepGrey ? 1 : 0
        case .jpeg, .png, .tiff: keepsGrey && profile == nil && bitmap.isGrey ? 1 : 0
        default: 0
        }
        let status: Int32 = try EncoderCancellation.with { cancel in try bitmap.pixels.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress
            return try message.withPointer { text in
                switch format {
                case let .jpeg(quality, progressive):
                    guard (1...100).contains(quality) else { throw ImageCodecError.invalidBitmap("JPEG quality \(quality) is outside 1...100") }
                    return lc_jpeg_encode(base, width, height, stride, Int32(quality), progressive ? 1 : 0, grey, cancel, &output, &size, text)
                case .png:
                    // Level 6 is zlib's default: nearly the size of 9 at a fraction of the time.
                    guard let deep else {
                        return lc_png_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, grey, 8, 6, cancel, &output, &size, text)
                    }
                    return deep.withUnsafeBytes { samples in
                        lc_png_encode(samples.baseAddress?.assumingMemoryBound(to: UInt8.self), width, height, bitmap.width * 8,
                                      bitmap.hasDeepTransparency ? 1 : 0, grey, 16, 6, cancel, &output, &size, text)
                    }
                case let .webp(quality):
                    guard (0...100).contains(quality) else { throw ImageCodecError.invalidBitmap("WebP quality \(quality) is outside 0...100") }
                    return lc_webp_encode(base, width, height, stride, 0, Float(quality), cancel, &output, &size, text)
                case .webpLossless:
                    return lc_webp_encode(base, width, height, stride, 1, 75, cancel, &output, &size, text)
                case let .avif(quality, speed):
                    guard (0...100).contains(quality) else { throw ImageCodecError.invalidBitmap("AVIF quality \(quality) is outside 0...100") }
                    guard (0...10).contains(speed) else { throw ImageCodecError.invalidBitmap("AVIF speed \(speed) is outside 0...10") }
                    try CodecLibrary.require(.avif)
                    let icc = [UInt8](profile ?? Data())
                    return lc_avif_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, Int32(quality), Int32(speed),
                                          icc, icc.count, cancel, &output, &size, text)
                case let .jxl(quality, effort):
                    guard (0...100).contains(quality) else { throw ImageCodecError.invalidBitmap("JPEG XL quality \(quality) is outside 0...100") }
                    guard (1...9).contains(effort) else { throw ImageCodecError.invalidBitmap("JPEG XL effort \(effort) is outside 1...9") }
                    try CodecLibrary.require(.jxl)
                    return lc_jxl_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, Int32(quality), Int32(effort), cancel,
                                         &output, &size, text)
                case let .heic(quality):
                    guard (0...100).contains(quality) else { throw ImageCodecError.invalidBitmap("HEIC quality \(quality) is outside 0...100") }
                    try CodecLibrary.require(.heif)
                    return lc_heif_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, Int32(quality), cancel, &output, &size, text)
                case .tiff:
                    try CodecLibrary.require(.tiff)
                    return lc_tiff_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, grey, cancel, &output, &size, text)
                case .bmp, .ico:
                    throw ImageCodecError.invalidBitmap("\(format.imageFormat) is written in Swift")
                case .gif:
                    var frames: [UnsafePointer<UInt8>?] = [base]
                    return lc_gif_encode(&frames, nil, 1, width, height, stride, 0, Int32(Self.gifQuantizationSpeed), cancel, &output, &size,
                                         text)
                }
            }
        } }
        try EncoderCancellation.check(status)
        guard status == LC_OK, let output else { throw ImageCodecError.encodingFailed(format.imageFormat, message: message.text) }
        // Data takes ownership and frees the C buffer with the allocator that made it.
        let encoded = Data(bytesNoCopy: output, count: size, deallocator: .custom { pointer, _ in lc_free(pointer) })
        guard let profile else { return encoded }
        return switch format {
        case .jpeg: ProfileEmbedding.jpeg(encoded, profile: profile)
        case .png: ProfileEmbedding.png(encoded, profile: profile)
        case .webp, .webpLossless:
            ProfileEmbedding.webp(encoded, profile: profile, width: bitmap.width, height: bitmap.height, hasAlpha: bitmap.hasTransparency)
        case .avif: encoded  // libavif wrote it
        // GIF has no colour profiles; it means sRGB. JPEG XL is tagged sRGB by libjxl, HEIC by
        // libheif's nclx box; the others are written without one.
        case .gif, .jxl, .heic, .tiff, .bmp, .ico: encoded
        }
    }
}

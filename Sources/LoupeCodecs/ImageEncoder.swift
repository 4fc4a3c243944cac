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

        /// The container format this produces.
        public var imageFormat: ImageFormat {
            switch self {
            case .jpeg: .jpeg
            case .png: .png
            case .webp, .webpLossless: .webp
            case .avif: .avif
            case .gif: .gif
            }
        }

        /// The largest width or height the format stores: JPEG, WebP and GIF keep sizes in 16,
        /// 14 and 16 bits; refusing here is clearer than failing deep in C.
        var maximumSide: Int {
            switch self {
            case .jpeg: 65_500
            case .png: Int(Int32.max)
            case .webp, .webpLossless: 16_383
            case .avif: 65_536
            case .gif: 65_535
            }
        }
    }

    /// Whether outputs embed the sRGB ICC profile (lcms2's, under 1 KB), for viewers that treat untagged
    /// images as something other than sRGB.
    public var embedsSRGBProfile: Bool

    /// Creates an encoder that embeds no profile.
    public init() {
        self.embedsSRGBProfile = false
    }

    /// Creates an encoder that embeds the sRGB profile or not.
    public init(embedsSRGBProfile: Bool) {
        self.embedsSRGBProfile = embedsSRGBProfile
    }

    /// Encodes `bitmap` as `format`. Throws `ImageCodecError.invalidBitmap` for an impossible
    /// request (size beyond the format, quality out of range) and `.encodingFailed` with the
    /// library's message otherwise.
    public func encode(_ bitmap: Bitmap, as format: Format) throws -> Data {
        let maxSide = format.maximumSide
        guard bitmap.width <= maxSide, bitmap.height <= maxSide else {
            throw ImageCodecError.invalidBitmap("\(bitmap.width)x\(bitmap.height) exceeds \(format.imageFormat)'s \(maxSide) pixels per side")
        }
        var message = CMessage()
        let profile = embedsSRGBProfile ? ProfileEmbedding.sRGB : nil
        if embedsSRGBProfile, profile == nil { throw ImageCodecError.encodingFailed(format.imageFormat, message: "no sRGB profile from lcms2") }
        var output: UnsafeMutablePointer<UInt8>?
        var size = 0
        let width = UInt32(bitmap.width), height = UInt32(bitmap.height), stride = bitmap.bytesPerRow
        let status: Int32 = try EncoderCancellation.with { cancel in try bitmap.pixels.withUnsafeBufferPointer { pixels in
            let base = pixels.baseAddress
            return try message.withPointer { text in
                switch format {
                case let .jpeg(quality, progressive):
                    guard (1...100).contains(quality) else { throw ImageCodecError.invalidBitmap("JPEG quality \(quality) is outside 1...100") }
                    return lc_jpeg_encode(base, width, height, stride, Int32(quality), progressive ? 1 : 0, cancel, &output, &size, text)
                case .png:
                    // Level 6 is zlib's default: nearly the size of 9 at a fraction of the time.
                    return lc_png_encode(base, width, height, stride, bitmap.hasTransparency ? 1 : 0, 6, cancel, &output, &size, text)
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
        case .gif: encoded  // GIF has no colour profiles; it means sRGB
        }
    }
}

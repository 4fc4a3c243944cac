import CLoupeCodecs
import Foundation

/// Decodes JPEG with libjpeg-turbo: baseline and progressive, every chroma subsampling,
/// grayscale, RGB, and CMYK/YCCK (converted to RGB through their ICC profile, else Pillow's
/// formula; Adobe inversion honoured). An embedded ICC profile (APP2, any number of segments)
/// converts the pixels to sRGB (`DecodingOptions.colorManagement`), after DCT scaling. With
/// `maxPixelSize` it decodes at N/8 scale (N in 1...8) through libjpeg's DCT scaling.
///
/// Corrupt or truncated data that libjpeg can recover from still decodes (missing rows come
/// out grey, as in libvips and browsers) and is reported in `DecodedImage.warning`; anything
/// libjpeg cannot recover from throws `ImageCodecError.corrupt` with libjpeg's message.
public struct JPEGDecoder: SingleFormatDecoding {
    /// Upper bound on progressive scans: a crafted file with thousands of scans would
    /// otherwise take minutes (libjpeg-turbo's `djpeg -maxscans` guards against the same).
    static let maxScans: Int32 = 1_000

    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withHeader(raw) { _, metadata, _ in metadata } }
    }

    public var format: ImageFormat { .jpeg }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            try withHeader(raw) { jpeg, metadata, colors in
                let options = try options.decided(for: metadata, by: afterHeader)
                let plan = ColorPlan(source: colors.source, pixels: colors.pixels, management: options.colorManagement)
                let eighths = JPEGDecoder.scaleEighths(width: metadata.width, height: metadata.height,
                                                       maxPixelSize: options.maxPixelSize, minimumScale: options.minimumScale)
                var width: UInt32 = 0, height: UInt32 = 0
                guard lc_jpeg_configure(jpeg, Int32(eighths), &width, &height) == LC_OK else {
                    throw ImageCodecError.corrupt(.jpeg, message: CMessage.string(lc_jpeg_message(jpeg)))
                }
                let bitmap = try Bitmap(width: Int(width), height: Int(height)) { out, stride in
                    guard let base = out.baseAddress,
                          lc_jpeg_decode(jpeg, base.assumingMemoryBound(to: UInt8.self), stride, JPEGDecoder.maxScans) == LC_OK
                    else { throw ImageCodecError.corrupt(.jpeg, message: CMessage.string(lc_jpeg_message(jpeg))) }
                    // After DCT scaling, so a thumbnail converts only its own pixels.
                    plan.apply(to: out, bytesPerRow: stride, width: Int(width), height: Int(height))
                }.knownOpaque()
                let libjpegWarning = lc_jpeg_warning_count(jpeg) > 0 ? CMessage.string(lc_jpeg_message(jpeg)) : nil
                let warning = ColorPlan.combine(libjpegWarning, plan.warning)
                let image = DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: warning, pendingColorConversion: plan.pending)
                return options.oriented(image)
            }
        }
    }

    /// The DCT scale as N/8: the smallest N in 1...8 that keeps the longest side at least
    /// `maxPixelSize` and N/8 at least `minimumScale` (8, full size, without either). Any N,
    /// not only 1, 2 and 4: a 1732 px photo fit to 512 decodes at 3/8 (650 px) rather than 1/2
    /// (866 px), 44 % fewer pixels for the resize that follows. libjpeg makes
    /// ceil(size * N / 8) pixels, hence the rounding up here. Public so that a caller can
    /// reserve memory for the decode before it runs.
    public static func scaleEighths(width: Int, height: Int, maxPixelSize: Int?, minimumScale: Double? = nil) -> Int {
        let target = maxPixelSize.map { max(0, $0) } ?? 0
        guard target > 0 || minimumScale != nil else { return 8 }
        // A scale of NaN, not above 0 or not below 1 reads as full size.
        let scale = minimumScale.map { $0 > 0 && $0 < 1 ? $0 : 1 } ?? 0
        let longest = max(width, height)
        for eighths in 1..<8 where (longest * eighths + 7) / 8 >= target && Double(eighths) / 8 >= scale - 1e-9 {
            return eighths
        }
        return 8
    }

    private func withHeader<T>(_ raw: UnsafeRawBufferPointer,
                               _ body: (OpaquePointer, ImageMetadata, (source: ColorSource?, pixels: SourcePixels)) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.jpeg, message: "empty data") }
        guard let jpeg = lc_jpeg_create(base.assumingMemoryBound(to: UInt8.self), raw.count) else {
            throw ImageCodecError.corrupt(.jpeg, message: "could not create a libjpeg decoder")
        }
        defer { lc_jpeg_destroy(jpeg) }
        var header = lc_jpeg_header()
        guard lc_jpeg_read_header(jpeg, &header) == LC_OK else {
            throw ImageCodecError.corrupt(.jpeg, message: CMessage.string(lc_jpeg_message(jpeg)))
        }
        let metadata = ImageMetadata(format: .jpeg, width: Int(header.width), height: Int(header.height),
                                     orientation: ExifOrientation(exif: UnsafeRawBufferPointer(start: header.exif, count: header.exif_size)),
                                     isProgressive: header.progressive != 0, isGrey: header.color_space == 1)
        // libjpeg's J_COLOR_SPACE: 1 grey, 4 CMYK, 5 YCCK (both decoded to raw CMYK).
        let pixels: SourcePixels = switch header.color_space {
        case 1: .grey
        case 4, 5: .cmyk(inverted: header.adobe_marker != 0)
        default: .rgba
        }
        let source = header.icc.map { ColorSource.iccProfile(Data(bytes: $0, count: header.icc_size)) }
        return try body(jpeg, metadata, (source, pixels))
    }
}

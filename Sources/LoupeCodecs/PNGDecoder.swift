import CLoupeCodecs
import Foundation

/// Decodes PNG with libpng: every colour type and bit depth (16-bit scaled to 8 with
/// rounding, or cut to the high byte as Pillow does: `DecodingOptions.sixteenBitReduction`;
/// or kept beside the rounded pixels when asked: `DecodingOptions.keepsDeepSamples`), palettes with tRNS, grey+alpha, Adam7 interlacing. PNG has no cheap reduced
/// decode, so `maxPixelSize` is ignored. Chunks after the image data are not read: a file whose
/// pixels are complete decodes even if IEND is missing. APNG animation is not supported by
/// Debian's libpng; such files decode as their default image.
public struct PNGDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withHeader(raw) { _, metadata, _, _ in metadata } }
    }

    public func decode(_ data: Data, options: DecodingOptions) throws -> DecodedImage {
        try decode(data, options: options, allowingFastPath: true).image
    }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try decode(data, options: options, allowingFastPath: true, afterHeader: afterHeader).image
    }

    public var format: ImageFormat { .png }

    /// The largest image the C shim's fast path decodes, in bytes of inflated rows: it holds
    /// them all at once beside the output bitmap (libpng holds one row), so a 100-megapixel
    /// RGBA file would need 400 MB more. 64 MiB is a 21-megapixel RGB photo.
    static let fastPathRawLimit = 64 << 20

    /// `decode(_:options:)` with the C shim's fast path allowed or not (libpng alone), and
    /// whether it was taken: internal, for the tests that compare the two paths.
    func decode(_ data: Data, options: DecodingOptions, allowingFastPath: Bool,
                fastPathRawLimit: Int = PNGDecoder.fastPathRawLimit,
                afterHeader: HeaderDecision = { _, _ in }) throws -> (image: DecodedImage, usedFastPath: Bool) {
        try data.withUnsafeBytes { raw in
            try withHeader(raw) { png, metadata, colors, deep in
                let options = try options.decided(for: metadata, by: afterHeader)
                let plan = ColorPlan(source: colors.source, pixels: colors.pixels, management: options.colorManagement)
                if options.keepsDeepSamples, deep {
                    let image = try Self.deepImage(png, metadata, plan: plan)
                    return (options.oriented(image), false)
                }
                let bitmap = try Bitmap(width: metadata.width, height: metadata.height) { out, stride in
                    guard let base = out.baseAddress,
                          lc_png_decode(png, base.assumingMemoryBound(to: UInt8.self), stride,
                                        options.sixteenBitReduction == .highByte ? 1 : 0, allowingFastPath ? max(0, fastPathRawLimit) : 0) == LC_OK
                    else { throw ImageCodecError.corrupt(.png, message: CMessage.string(lc_png_message(png))) }
                    plan.apply(to: out, bytesPerRow: stride, width: metadata.width, height: metadata.height)
                }
                let image = DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: plan.warning, pendingColorConversion: plan.pending)
                return (options.oriented(image), lc_png_used_fast_path(png) != 0)
            }
        }
    }

    /// The image at 16 bits per channel (``Bitmap/deepSamples``), through libpng, its colours
    /// converted at 16 bits where `plan` can (PNG's gamma and chromaticities); where it cannot
    /// (a profile), their 8-bit rounding is converted and the image has 8 bits. The header's size
    /// was checked against the limits, and the caller's budget counted these samples.
    private static func deepImage(_ png: OpaquePointer, _ metadata: ImageMetadata, plan: ColorPlan) throws -> DecodedImage {
        let count = metadata.width * metadata.height * Bitmap.bytesPerPixel
        var failed = false
        var samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            // UInt16 is trivial: samples left unwritten by a failed decode need no cleanup.
            failed = lc_png_decode16(png, buffer.baseAddress, metadata.width * Bitmap.bytesPerPixel * 2) != LC_OK
            initialized = failed ? 0 : count
        }
        if failed { throw ImageCodecError.corrupt(.png, message: CMessage.string(lc_png_message(png))) }
        let converted = plan.applyDeep(to: &samples)
        var bitmap = try Bitmap(width: metadata.width, height: metadata.height, deepSamples: samples)
        if !converted {
            // Rewriting the 8-bit pixels drops the 16-bit ones.
            bitmap.withUnsafeMutablePixels { plan.apply(to: $0, bytesPerRow: $1, width: metadata.width, height: metadata.height) }
        }
        return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: plan.warning,
                            pendingColorConversion: converted ? nil : plan.pending)
    }

    private func withHeader<T>(_ raw: UnsafeRawBufferPointer,
                               _ body: (OpaquePointer, ImageMetadata, (source: ColorSource?, pixels: SourcePixels), _ deep: Bool) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.png, message: "empty data") }
        guard let png = lc_png_create(base.assumingMemoryBound(to: UInt8.self), raw.count) else {
            throw ImageCodecError.corrupt(.png, message: "could not create a libpng decoder")
        }
        defer { lc_png_destroy(png) }
        var header = lc_png_header()
        guard lc_png_read_header(png, &header) == LC_OK else {
            throw ImageCodecError.corrupt(.png, message: CMessage.string(lc_png_message(png)))
        }
        var metadata = ImageMetadata(format: .png, width: Int(header.width), height: Int(header.height),
                                     orientation: ExifOrientation(exif: UnsafeRawBufferPointer(start: header.exif, count: header.exif_size)),
                                     isProgressive: header.interlaced != 0, isGrey: header.color_type == 0 || header.color_type == 4)
        metadata.hasDeepSamples = header.bit_depth == 16
        return try body(png, metadata, PNGDecoder.colors(of: header), metadata.hasDeepSamples)
    }

    /// The colour information of a PNG, in PNG's order of precedence: iCCP, then sRGB, then
    /// gAMA with cHRM. A gAMA of 1/2.2 without cHRM is taken as sRGB, as browsers do: it is
    /// what encoders write for sRGB content, and the two curves differ only in the darkest steps.
    static func colors(of header: lc_png_header) -> (source: ColorSource?, pixels: SourcePixels) {
        // PNG colour types 0 and 4 are grey and grey with alpha.
        let grey = header.color_type == 0 || header.color_type == 4
        if let icc = header.icc {
            return (.iccProfile(Data(bytes: icc, count: header.icc_size)), grey ? .grey : .rgba)
        }
        guard header.srgb == 0, header.gamma > 0 else { return (nil, .rgba) }
        let chromaticities: [Double]? = header.has_chromaticities != 0
            ? withUnsafeBytes(of: header.chromaticities) { Array($0.bindMemory(to: Double.self)) }
            : nil
        if chromaticities == nil, abs(header.gamma - 1 / 2.2) < 0.000_01 { return (nil, .rgba) }
        return (.pngGamma(header.gamma, chromaticities: chromaticities), .rgba)
    }
}

import CLoupeCodecs
import Foundation

/// Decodes TIFF with libtiff: every layout libtiff's RGBA reader knows (grey, palette, RGB,
/// YCbCr, CMYK, 1 to 16 bits, strips or tiles, any of its compressions), alpha, the ICC
/// profile; a 16-bit RGB or grey image in strips keeps its 16-bit samples when asked
/// (``DecodingOptions/keepsDeepSamples``). A multi-page file decodes its first page, as imgproxy does. The Orientation tag is
/// reported, not applied by libtiff, so `appliesOrientation` treats it like EXIF's.
public struct TIFFDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withHeader(raw, limits: DecodingLimits()) { _, metadata, _ in metadata } }
    }

    public var format: ImageFormat { .tiff }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            try withHeader(raw, limits: options.limits) { tiff, metadata, info in
                let options = try options.decided(for: metadata, by: afterHeader)
                let source = info.icc.map { ColorSource.iccProfile(Data(bytes: $0, count: info.icc_size)) }
                let plan = ColorPlan(source: source, pixels: info.grey != 0 ? .grey : .rgba, management: options.colorManagement)
                let width = metadata.width, height = metadata.height
                if options.keepsDeepSamples, metadata.hasDeepSamples, !plan.changesPixels {
                    let samples = try Self.deepSamples(tiff, width: width, height: height)
                    let bitmap = try Bitmap(width: width, height: height, deepSamples: samples)
                    return options.oriented(DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: plan.warning))
                }
                return try options.oriented(plan.decodeStill(metadata, width: width, height: height, format: .tiff) { out, stride, message in
                    lc_tiff_decode(tiff, out, stride, UInt32(width), UInt32(height), message)
                })
            }
        }
    }

    /// The image's RGBA16 samples (``Bitmap/deepSamples``); the header's size was checked
    /// against the limits and the caller's budget counted them.
    private static func deepSamples(_ tiff: OpaquePointer, width: Int, height: Int) throws -> [UInt16] {
        let count = width * height * Bitmap.bytesPerPixel
        var message = CMessage()
        var failed = false
        let samples = [UInt16](unsafeUninitializedCapacity: count) { buffer, initialized in
            // UInt16 is trivial: samples left unwritten by a failed decode need no cleanup.
            failed = message.withPointer { lc_tiff_decode16(tiff, buffer.baseAddress, UInt32(width), UInt32(height), $0) } != LC_OK
            initialized = failed ? 0 : count
        }
        if failed { throw ImageCodecError.corrupt(.tiff, message: message.text) }
        return samples
    }

    private func withHeader<T>(_ raw: UnsafeRawBufferPointer, limits: DecodingLimits,
                               _ body: (OpaquePointer, ImageMetadata, lc_tiff_info) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.tiff, message: "empty data") }
        try CodecLibrary.require(.tiff)
        var info = lc_tiff_info()
        var message = CMessage()
        // No buffer libtiff makes for one image within the limits is larger than the image at
        // 16 bits per sample with four samples: a strip or tile declaring more is refused.
        let maxAllocation = limits.maxPixelCount.multipliedReportingOverflow(by: 8)
        let created = message.withPointer {
            lc_tiff_create(base.assumingMemoryBound(to: UInt8.self), raw.count, maxAllocation.overflow ? Int.max : maxAllocation.partialValue,
                           &info, $0)
        }
        guard let tiff = created else { throw ImageCodecError.corrupt(.tiff, message: message.text) }
        defer { lc_tiff_destroy(tiff) }
        var metadata = ImageMetadata(format: .tiff, width: Int(info.width), height: Int(info.height),
                                     orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up, isGrey: info.grey != 0)
        metadata.hasDeepSamples = info.deep != 0
        return try body(tiff, metadata, info)
    }
}

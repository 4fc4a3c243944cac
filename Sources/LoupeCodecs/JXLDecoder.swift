import CLoupeCodecs
import Foundation

/// Decodes JPEG XL with libjxl: lossy (XYB) and lossless, any bit depth (to 8 bits), alpha,
/// grey, and the colour space libjxl describes with an ICC profile. Animations decode their
/// first frame. The orientation in the header is reported, not applied by libjxl, so
/// `appliesOrientation` treats it like EXIF's. libjxl 0.7 has no reduced decode.
public struct JXLDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withHeader(raw) { _, metadata, _ in metadata } }
    }

    public var format: ImageFormat { .jxl }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            try withHeader(raw) { jxl, metadata, info in
                let options = try options.decided(for: metadata, by: afterHeader)
                let source = info.icc.map { ColorSource.iccProfile(Data(bytes: $0, count: info.icc_size)) }
                let plan = ColorPlan(source: source, pixels: info.grey != 0 ? .grey : .rgba, management: options.colorManagement)
                let width = metadata.width, height = metadata.height
                return try options.oriented(plan.decodeStill(metadata, width: width, height: height, format: .jxl) { out, stride, message in
                    lc_jxl_decode(jxl, out, stride, UInt32(width), UInt32(height), message)
                })
            }
        }
    }

    private func withHeader<T>(_ raw: UnsafeRawBufferPointer, _ body: (OpaquePointer, ImageMetadata, lc_jxl_info) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.jxl, message: "empty data") }
        try CodecLibrary.require(.jxl)
        var info = lc_jxl_info()
        var message = CMessage()
        let created = message.withPointer { lc_jxl_create(base.assumingMemoryBound(to: UInt8.self), raw.count, &info, $0) }
        guard let jxl = created else { throw ImageCodecError.corrupt(.jxl, message: message.text) }
        defer { lc_jxl_destroy(jxl) }
        let metadata = ImageMetadata(format: .jxl, width: Int(info.width), height: Int(info.height),
                                     orientation: ExifOrientation(rawValue: Int(info.orientation)) ?? .up, isGrey: info.grey != 0)
        return try body(jxl, metadata, info)
    }
}

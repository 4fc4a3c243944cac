import CLoupeCodecs
import Foundation

/// Decodes AVIF with libavif (AV1 through libaom or dav1d): 8, 10 and 12 bits (rounded to 8),
/// alpha, ICC or CICP colour. Sequences (animated AVIF) decode their first frame. The irot and
/// imir properties are reported as `metadata.orientation` and applied like EXIF orientation
/// (`appliesOrientation`); an EXIF orientation in AVIF only repeats them and is not read. AV1
/// has no reduced decode, so `maxPixelSize` is left to the processing layer. libavif reads no
/// thumbnail items: `usesEmbeddedThumbnail` reads them through libheif (`HEIFDecoder`).
public struct AVIFDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withContainer(raw) { _, metadata, _ in metadata } }
    }

    public var format: ImageFormat { .avif }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        if options.usesEmbeddedThumbnail,
           let thumbnail = try HEIFDecoder.embeddedThumbnail(of: data, format: .avif, options: options, afterHeader: afterHeader) {
            return thumbnail
        }
        return try data.withUnsafeBytes { raw in
            try withContainer(raw) { avif, metadata, info in
                let options = try options.decided(for: metadata, by: afterHeader)
                let plan = ColorPlan(source: ColorSource(icc: info.icc, size: info.icc_size, cicp: info.cicp),
                                     pixels: .rgba, management: options.colorManagement)
                var message = CMessage()
                let bitmap = try Bitmap(width: metadata.width, height: metadata.height) { out, stride in
                    let status = message.withPointer { lc_avif_decode(avif, out.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, $0) }
                    guard status == LC_OK else { throw ImageCodecError.corrupt(.avif, message: message.text) }
                    plan.apply(to: out, bytesPerRow: stride, width: metadata.width, height: metadata.height)
                }
                return options.oriented(DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap), warning: plan.warning, pendingColorConversion: plan.pending))
            }
        }
    }

    private func withContainer<T>(_ raw: UnsafeRawBufferPointer,
                                  _ body: (OpaquePointer, ImageMetadata, lc_avif_info) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.avif, message: "empty data") }
        try CodecLibrary.require(.avif)
        var info = lc_avif_info()
        var message = CMessage()
        // libavif's own limits (its defaults: 16384² pixels, 2¹⁴ frames) are enforced while
        // parsing, before any plane exists; ours are checked from the header that parsing
        // reports, also before any pixel, so they fail with their typed errors.
        let created = message.withPointer {
            lc_avif_create(base.assumingMemoryBound(to: UInt8.self), raw.count, 0, 0, &info, $0)
        }
        guard let avif = created else { throw ImageCodecError.corrupt(.avif, message: message.text) }
        defer { lc_avif_destroy(avif) }
        let metadata = ImageMetadata(format: .avif, width: Int(info.width), height: Int(info.height),
                                     orientation: ExifOrientation(rotation: Int(info.rotation), mirror: Int(info.mirror)),
                                     frameCount: max(1, Int(info.frame_count)))
        return try body(avif, metadata, info)
    }
}

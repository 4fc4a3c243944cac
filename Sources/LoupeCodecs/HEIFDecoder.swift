import CLoupeCodecs
import Foundation

/// Decodes HEIF/HEIC (HEVC stills, as iPhones write them) with libheif: 8 and 10 bits (rounded
/// to 8), alpha, grid images, ICC or nclx colour. libheif applies the irot/imir/clap
/// transformations while decoding (HEIF's own orientation; EXIF orientation in HEIF only repeats
/// it, so it is not applied again): sizes here are as displayed and `orientation` is `.up`.
///
/// With `maxPixelSize`, the file's largest thumbnail item is decoded instead of the image when
/// it is at least that large (iPhones store a 320 px one); HEVC has no reduced decode otherwise.
/// With `usesEmbeddedThumbnail`, the thumbnail item is the image whatever its size.
public struct HEIFDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withContainer(raw, format: .heif, limits: DecodingLimits()) { _, metadata, _ in metadata } }
    }

    public var format: ImageFormat { .heif }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            try withContainer(raw, format: .heif, limits: options.limits) { heif, metadata, info in
                if options.usesEmbeddedThumbnail, info.thumbnail_width > 0, info.thumbnail_height > 0 {
                    return try Self.decodeThumbnailItem(heif, info, format: .heif, options: options, afterHeader: afterHeader)
                }
                let options = try options.decided(for: metadata, by: afterHeader)
                let thumbnail = HEIFDecoder.usesThumbnail(info, maxPixelSize: options.maxPixelSize)
                let width = Int(thumbnail ? info.thumbnail_width : info.width)
                let height = Int(thumbnail ? info.thumbnail_height : info.height)
                return try Self.decodeItem(heif, info, thumbnail: thumbnail, metadata: metadata, width: width, height: height, options: options)
            }
        }
    }

    /// The file's thumbnail item decoded as the image, its size the one the header decision
    /// and the limits see, or nil when libheif cannot read the file or it has no thumbnail
    /// (the caller then decodes the image itself, as imgproxy's `enforce_thumbnail` falls back).
    /// libheif reads AVIF too, which libavif, Loupe's AVIF decoder, has no thumbnails for.
    static func embeddedThumbnail(of data: Data, format: ImageFormat, options: DecodingOptions,
                                  afterHeader: HeaderDecision) throws -> DecodedImage? {
        guard (try? CodecLibrary.require(.heif)) != nil else { return nil }
        return try data.withUnsafeBytes { raw -> DecodedImage? in
            // Only a file libheif cannot open falls back; once the header decision has run, a
            // failure is the request's (running that decision twice could reserve twice).
            var opened = false
            do {
                return try HEIFDecoder().withContainer(raw, format: format, limits: options.limits) { heif, _, info in
                    opened = true
                    guard info.thumbnail_width > 0, info.thumbnail_height > 0 else { return nil }
                    return try decodeThumbnailItem(heif, info, format: format, options: options, afterHeader: afterHeader)
                }
            } catch where !opened {
                return nil
            }
        }
    }

    private static func decodeThumbnailItem(_ heif: OpaquePointer, _ info: lc_heif_info, format: ImageFormat, options: DecodingOptions,
                                            afterHeader: HeaderDecision) throws -> DecodedImage {
        let width = Int(info.thumbnail_width), height = Int(info.thumbnail_height)
        let metadata = ImageMetadata(format: format, width: width, height: height)
        let options = try options.decided(for: metadata, by: afterHeader)
        return try decodeItem(heif, info, thumbnail: true, metadata: metadata, width: width, height: height, options: options)
    }

    private static func decodeItem(_ heif: OpaquePointer, _ info: lc_heif_info, thumbnail: Bool, metadata: ImageMetadata,
                                   width: Int, height: Int, options: DecodingOptions) throws -> DecodedImage {
        let plan = ColorPlan(source: ColorSource(icc: info.icc, size: info.icc_size, cicp: info.cicp),
                             pixels: .rgba, management: options.colorManagement)
        return try plan.decodeStill(metadata, width: width, height: height, format: metadata.format) { out, stride, message in
            lc_heif_decode(heif, thumbnail ? 1 : 0, UInt32(width), UInt32(height), out, stride, message)
        }
    }

    /// Whether the thumbnail item serves a request for `maxPixelSize`: large enough, and of the
    /// image's shape (its short side within two pixels of the image's aspect ratio: encoders
    /// round thumbnail sides to even numbers, heif-enc makes 600x400 into 320x212), so it is
    /// the same picture.
    static func usesThumbnail(_ info: lc_heif_info, maxPixelSize: Int?) -> Bool {
        guard let target = maxPixelSize, target > 0, info.thumbnail_width > 0, info.thumbnail_height > 0 else { return false }
        let tw = Int(info.thumbnail_width), th = Int(info.thumbnail_height), w = Int(info.width), h = Int(info.height)
        guard max(tw, th) >= target, max(tw, th) < max(w, h) else { return false }
        return abs(tw * h - th * w) <= 2 * max(w, h)
    }

    private func withContainer<T>(_ raw: UnsafeRawBufferPointer, format: ImageFormat, limits: DecodingLimits,
                                  _ body: (OpaquePointer, ImageMetadata, lc_heif_info) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(format, message: "empty data") }
        try CodecLibrary.require(.heif)
        var info = lc_heif_info()
        var message = CMessage()
        // No side can exceed the pixel limit (nor libheif's default of 32768); libheif refuses
        // larger ones while parsing.
        let maxSide = Int32(clamping: limits.maxPixelCount)
        let created = message.withPointer { lc_heif_create(base.assumingMemoryBound(to: UInt8.self), raw.count, maxSide, &info, $0) }
        guard let heif = created else { throw ImageCodecError.corrupt(format, message: message.text) }
        defer { lc_heif_destroy(heif) }
        let metadata = ImageMetadata(format: format, width: Int(info.width), height: Int(info.height))
        return try body(heif, metadata, info)
    }
}

import CLoupeCodecs
import Foundation

/// Decodes WebP with libwebp: lossy, lossless, alpha, and animations (libwebpdemux composites
/// the frames onto the canvas). A still image with `maxPixelSize` smaller than itself is
/// scaled inside libwebp's decoder to fit that size, keeping its aspect ratio, and one with a
/// `minimumScale` to that share of its size; so is an animation's first frame when only it is
/// asked for and it covers the canvas.
public struct WebPDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        try data.withUnsafeBytes { raw in try withContainer(raw) { _, metadata, _, _ in metadata } }
    }

    public var format: ImageFormat { .webp }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            try withContainer(raw) { webp, metadata, animated, profile in
                let options = try options.decided(for: metadata, by: afterHeader)
                let plan = ColorPlan(source: profile.map(ColorSource.iccProfile), pixels: .rgba, management: options.colorManagement)
                // An animation of one frame still needs compositing: its frame may be smaller
                // than the canvas and offset within it. Its first frame alone, for a thumbnail,
                // is decoded scaled like a still image when it covers the canvas (as a first
                // frame usually does); libwebp's animation decoder cannot scale.
                let scaledFirstFrame = options.firstFrameOnly && options.maxPixelSize.map { $0 > 0 && $0 < max(metadata.width, metadata.height) } == true
                    && lc_webp_first_frame_covers_canvas(webp) != 0
                var image = if animated && !scaledFirstFrame {
                    try decodeAnimation(webp, metadata: metadata, options: options, plan: plan)
                } else {
                    try decodeStill(webp, metadata: metadata, options: options, plan: plan)
                }
                image.warning = plan.warning
                image.pendingColorConversion = plan.pending
                return options.oriented(image)
            }
        }
    }

    private func decodeStill(_ webp: OpaquePointer, metadata: ImageMetadata, options: DecodingOptions, plan: ColorPlan) throws -> DecodedImage {
        let (width, height) = Self.decodedSize(width: metadata.width, height: metadata.height, options: options)
        var message = CMessage()
        let bitmap = try Bitmap(width: width, height: height) { out, stride in
            let status = message.withPointer { text in
                lc_webp_decode_still(webp, UInt32(width), UInt32(height), out.baseAddress?.assumingMemoryBound(to: UInt8.self),
                                     stride, text)
            }
            guard status == LC_OK else { throw ImageCodecError.corrupt(.webp, message: message.text) }
            plan.apply(to: out, bytesPerRow: stride, width: width, height: height)
        }
        return DecodedImage(metadata: metadata, firstFrame: ImageFrame(bitmap: bitmap))
    }

    /// The size a still image decodes at: fitted to `maxPixelSize` (rounded), and not below
    /// `minimumScale` of the source (rounded up, so a processor that scales the image down by
    /// that factor still finds every pixel it needs); the larger of the two when both are
    /// given, the full size when neither asks for less. libwebp decodes the full picture and
    /// scales its rows as they come, so the smaller size saves the colour conversion, the
    /// memory and the processor's resampling, not the decode itself.
    static func decodedSize(width: Int, height: Int, options: DecodingOptions) -> (width: Int, height: Int) {
        let longest = max(width, height)
        var fitted: Double?
        if let target = options.maxPixelSize {
            fitted = target > 0 && longest > target ? Double(target) / Double(longest) : 1
        }
        // A scale of NaN, not above 0 or not below 1 reads as full size, as for JPEG.
        let needed = options.minimumScale.map { $0 > 0 && $0 < 1 ? $0 : 1 }
        let scale = max(fitted ?? 0, needed ?? 0)
        guard scale > 0, scale < 1 else { return (width, height) }
        if let needed, needed >= scale {
            return (max(1, Int((Double(width) * needed).rounded(.up))), max(1, Int((Double(height) * needed).rounded(.up))))
        }
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    private func decodeAnimation(_ webp: OpaquePointer, metadata: ImageMetadata, options: DecodingOptions, plan: ColorPlan) throws -> DecodedImage {
        let wanted = options.framesToDecode(of: metadata.frameCount)
        try options.limits.checkFrames(wanted, of: metadata)
        var previousTimestamp: Int32 = 0
        let frames = try FrameCollector(format: .webp, width: metadata.width, height: metadata.height)
            .collect(limit: wanted) { out, stride, text in
                // libwebp reports each frame's end time; the duration is the difference.
                var timestamp: Int32 = 0
                let status = lc_webp_next_frame(webp, out, stride, &timestamp, text)
                defer { previousTimestamp = timestamp }
                if status > 0, let out {
                    // Each composited canvas is converted: libwebp composites in stored values.
                    let canvas = UnsafeMutableRawBufferPointer(start: out, count: stride * metadata.height)
                    plan.apply(to: canvas, bytesPerRow: stride, width: metadata.width, height: metadata.height)
                }
                return (status, .milliseconds(Int(timestamp - previousTimestamp)))
            }
        var decoded = metadata
        if !options.firstFrameOnly { decoded.frameCount = 1 + frames.later.count }
        return DecodedImage(metadata: decoded, firstFrame: frames.first, laterFrames: frames.later)
    }

    private func withContainer<T>(_ raw: UnsafeRawBufferPointer,
                                  _ body: (OpaquePointer, ImageMetadata, _ animated: Bool, _ profile: Data?) throws -> T) throws -> T {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.webp, message: "empty data") }
        var info = lc_webp_info()
        var message = CMessage()
        let created = message.withPointer { lc_webp_create(base.assumingMemoryBound(to: UInt8.self), raw.count, &info, $0) }
        guard let webp = created else { throw ImageCodecError.corrupt(.webp, message: message.text) }
        defer { lc_webp_destroy(webp) }
        let animated = info.has_animation != 0
        let metadata = ImageMetadata(format: .webp, width: Int(info.width), height: Int(info.height),
                                     orientation: ExifOrientation(exif: UnsafeRawBufferPointer(start: info.exif, count: info.exif_size)),
                                     frameCount: max(1, Int(info.frame_count)),
                                     loopCount: animated ? Int(info.loop_count) : nil)
        let profile = info.icc.map { Data(bytes: $0, count: info.icc_size) }
        return try body(webp, metadata, animated, profile)
    }
}

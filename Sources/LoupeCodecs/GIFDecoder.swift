import CLoupeCodecs
import Foundation

/// Decodes GIF with giflib and composites every frame onto the canvas (giflib leaves that to
/// its callers): disposal methods, transparency, frame offsets, clipping, interlacing. The
/// canvas starts transparent, as in browsers and the gif-test-suite. A file cut short after a
/// complete frame yields the frames it has; a pixel index outside the colour table is an error.
public struct GIFDecoder: SingleFormatDecoding {
    /// Creates a decoder; it holds no state.
    public init() {}

    public func metadata(of data: Data) throws -> ImageMetadata {
        // Counting frames walks the file but skips compressed pixel data undecoded.
        try data.withUnsafeBytes { raw in try scan(raw, maxFrames: Int(UInt32.max - 1)) }
    }

    public var format: ImageFormat { .gif }

    public func decode(_ data: Data, options: DecodingOptions, afterHeader: HeaderDecision) throws -> DecodedImage {
        try data.withUnsafeBytes { raw in
            let limits = options.limits
            var options = options
            // The scan skips compressed pixel data and stops one frame past the limit (or past
            // the frames asked for), so a million-frame file costs little.
            let metadata = try scan(raw, maxFrames: min(limits.maxFrameCount, max(1, options.maximumFrames ?? Int.max)))
            options = try options.decided(for: metadata, by: afterHeader)
            let frameLimit = options.framesToDecode(of: metadata.frameCount)
            try limits.checkFrames(frameLimit, of: metadata)
            var message = CMessage()
            let created = message.withPointer { lc_gif_create(raw.baseAddress?.assumingMemoryBound(to: UInt8.self), raw.count, $0) }
            guard let gif = created else { throw ImageCodecError.corrupt(.gif, message: message.text) }
            defer { lc_gif_destroy(gif) }
            let frames = try FrameCollector(format: .gif, width: metadata.width, height: metadata.height)
                .collect(limit: frameLimit) { out, stride, text in
                    var delay: Int32 = 0
                    let status = lc_gif_next_frame(gif, out, stride, &delay, text)
                    return (status, .milliseconds(Int(delay) * 10))
                }
            var result = metadata
            // A frame whose data turns out empty or broken ends the animation early; report
            // the frames actually decoded.
            if !options.firstFrameOnly { result.frameCount = 1 + frames.later.count }
            return DecodedImage(metadata: result, firstFrame: frames.first, laterFrames: frames.later)
        }
    }

    private func scan(_ raw: UnsafeRawBufferPointer, maxFrames: Int) throws -> ImageMetadata {
        guard let base = raw.baseAddress, raw.count > 0 else { throw ImageCodecError.corrupt(.gif, message: "empty data") }
        var info = lc_gif_info()
        var message = CMessage()
        let status = message.withPointer {
            lc_gif_scan(base.assumingMemoryBound(to: UInt8.self), raw.count, UInt32(clamping: maxFrames), &info, $0)
        }
        guard status == LC_OK else { throw ImageCodecError.corrupt(.gif, message: message.text) }
        return ImageMetadata(format: .gif, width: Int(info.width), height: Int(info.height),
                             frameCount: Int(info.frame_count),
                             loopCount: info.frame_count > 1 ? Int(max(0, info.loop_count)) : nil,
                             isProgressive: info.interlaced != 0)
    }
}

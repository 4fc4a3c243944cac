/// Drains a C frame source (`lc_gif_next_frame`, `lc_webp_next_frame`): each call composites
/// the next frame into a fresh canvas-sized bitmap and returns 1, or 0 at the end, or a
/// negative status with a message. Callers have checked the frame and pixel limits.
struct FrameCollector {
    let format: ImageFormat
    let width: Int
    let height: Int

    /// Collects up to `limit` frames; `next` gets the output buffer, its stride and the message
    /// buffer, and returns the C status with the frame's display time.
    func collect(limit: Int,
                 next: (UnsafeMutablePointer<UInt8>?, Int, UnsafeMutablePointer<CChar>) -> (status: Int32, duration: Duration))
        throws -> (first: ImageFrame, later: [ImageFrame]) {
        var frames: [ImageFrame] = []
        frames.reserveCapacity(min(limit, 1_024))
        var message = CMessage()
        while frames.count < limit {
            var result: (status: Int32, duration: Duration) = (0, .zero)
            let bitmap = try Bitmap(width: width, height: height) { out, stride in
                result = message.withPointer { next(out.baseAddress?.assumingMemoryBound(to: UInt8.self), stride, $0) }
                guard result.status >= 0 else { throw ImageCodecError.corrupt(format, message: message.text) }
            }
            if result.status == 0 { break }
            frames.append(ImageFrame(bitmap: bitmap, duration: result.duration))
        }
        guard let first = frames.first else { throw ImageCodecError.corrupt(format, message: "no complete frame") }
        return (first, Array(frames.dropFirst()))
    }
}

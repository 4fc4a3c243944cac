/// Upper bounds checked from the header before any pixel buffer is allocated, so a small file
/// that declares a huge image (a "decompression bomb") is refused at the cost of its header.
public struct DecodingLimits: Sendable, Equatable {
    /// Maximum declared width × height of one image or animation canvas.
    public var maxPixelCount: Int
    /// Maximum number of frames of an animation.
    public var maxFrameCount: Int
    /// Maximum pixels over all decoded frames together (frames × canvas), which is what an
    /// animation costs in memory once every frame is composited.
    public var maxTotalPixelCount: Int

    /// Creates limits; the defaults admit 100-megapixel photos and 1,000-frame animations.
    public init(maxPixelCount: Int = 100_000_000, maxFrameCount: Int = 1_000, maxTotalPixelCount: Int = 400_000_000) {
        self.maxPixelCount = maxPixelCount
        self.maxFrameCount = maxFrameCount
        self.maxTotalPixelCount = maxTotalPixelCount
    }

    /// Throws when the image `metadata` declares breaks a limit: an empty or too large frame,
    /// too many frames, too many pixels in all. For a caller that passes the source on without
    /// decoding it (the service's `raw`); decoders check as they go (``checkSize(_:)``, then
    /// ``checkFrames(_:of:)`` for the frames they will decode).
    public func check(_ metadata: ImageMetadata) throws(ImageCodecError) {
        try checkSize(metadata)
        try checkFrames(max(1, metadata.frameCount), of: metadata)
    }

    /// Throws when one frame of `metadata` is too large (or empty).
    func checkSize(_ metadata: ImageMetadata) throws(ImageCodecError) {
        guard metadata.width > 0, metadata.height > 0 else {
            throw .invalidDimensions(width: metadata.width, height: metadata.height)
        }
        guard metadata.pixelCount <= maxPixelCount else {
            throw .pixelLimitExceeded(width: metadata.width, height: metadata.height, limit: maxPixelCount)
        }
    }

    /// Throws when decoding `frames` frames of `metadata`'s canvas would exceed the limits.
    func checkFrames(_ frames: Int, of metadata: ImageMetadata) throws(ImageCodecError) {
        guard frames <= maxFrameCount else { throw .frameLimitExceeded(frames: frames, limit: maxFrameCount) }
        let (total, overflow) = metadata.pixelCount.multipliedReportingOverflow(by: frames)
        guard !overflow, total <= maxTotalPixelCount else {
            throw .totalPixelLimitExceeded(frames: frames, pixelsPerFrame: metadata.pixelCount, limit: maxTotalPixelCount)
        }
    }
}

import LoupeCodecs

/// A decoded (and possibly processed) image with what is known about its source.
public struct ImageContainer: Sendable, Equatable {
    /// The pixels: upright, downscaled to the request's thumbnail size and processed by its
    /// processors. For an animation, its first frame.
    public var bitmap: Bitmap
    /// Frames after the first, each processed like ``bitmap``, when the request kept an
    /// animation (``ImageRequest/maximumFrames`` above 1); empty for still images.
    public var laterFrames: [ImageFrame] = []
    /// How long the first frame shows in an animation; zero for still images.
    public var firstFrameDuration: Duration = .zero
    /// The source's header: format, full size, orientation, frame count, loop count.
    public var metadata: ImageMetadata
    /// The size of the encoded source in bytes.
    public var dataCount: Int

    /// A container for `bitmap`, decoded from `dataCount` bytes described by `metadata`.
    ///
    /// - Parameters:
    ///   - bitmap: the pixels: upright, at the request's thumbnail size and processed; for an animation,
    ///     its first frame (set ``laterFrames`` and ``firstFrameDuration`` for the rest).
    ///   - metadata: the source's header: format, full size, orientation, frame count, loop count.
    ///   - dataCount: the size of the encoded source in bytes.
    public init(bitmap: Bitmap, metadata: ImageMetadata, dataCount: Int) {
        self.bitmap = bitmap
        self.metadata = metadata
        self.dataCount = dataCount
    }

    /// What the image costs in the memory cache: the bytes of its pixels (16-bit samples too).
    var cost: Int {
        laterFrames.reduce(bitmap.byteCount) { $0 + $1.bitmap.byteCount }
    }

    /// Every frame in display order, ``bitmap`` first.
    public var frames: [ImageFrame] { [ImageFrame(bitmap: bitmap, duration: firstFrameDuration)] + laterFrames }
}

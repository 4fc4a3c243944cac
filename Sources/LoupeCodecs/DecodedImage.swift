/// One frame of a decoded image: the composited canvas and how long it shows.
public struct ImageFrame: Sendable, Equatable {
    /// The full canvas after this frame was drawn.
    public var bitmap: Bitmap
    /// Display time as stored in the file (GIF: hundredths of a second; zero is common and
    /// players usually show such frames for 100 ms). Zero for still images.
    public var duration: Duration

    /// Creates a frame.
    public init(bitmap: Bitmap, duration: Duration = .zero) {
        self.bitmap = bitmap
        self.duration = duration
    }
}

/// The result of decoding: header metadata plus at least one frame.
public struct DecodedImage: Sendable, Equatable {
    /// Header facts about the file (sizes as stored, before orientation is applied).
    public var metadata: ImageMetadata
    /// The first (or only) frame.
    public var firstFrame: ImageFrame
    /// Frames after the first, for animations.
    public var laterFrames: [ImageFrame]
    /// The first message of a problem the library recovered from (for example a truncated
    /// JPEG, whose missing rows come out grey as in libvips and browsers); nil when clean.
    public var warning: String?
    /// The conversion to sRGB still to apply to every frame, when the options asked for
    /// `ColorManagement.convertToSRGBAfterResizing` and the file's colours are not sRGB;
    /// nil when the pixels are final.
    public var pendingColorConversion: PendingColorConversion?

    /// Creates a decoded image; the first frame is separate so an image can never be empty.
    public init(metadata: ImageMetadata, firstFrame: ImageFrame, laterFrames: [ImageFrame] = [], warning: String? = nil,
                pendingColorConversion: PendingColorConversion? = nil) {
        self.metadata = metadata
        self.firstFrame = firstFrame
        self.laterFrames = laterFrames
        self.warning = warning
        self.pendingColorConversion = pendingColorConversion
    }

    /// The first frame's pixels: the image for still formats.
    public var bitmap: Bitmap { firstFrame.bitmap }

    /// All frames in display order.
    public var frames: [ImageFrame] { [firstFrame] + laterFrames }
}

import LoupeCodecs

/// A URL's own limits on its source, imgproxy's security options `max_src_resolution`,
/// `max_src_file_size` and `max_animation_frame_resolution`. They only lower the server's
/// limits, which the pipeline applies to every source whatever the URL says; each is checked
/// from the source's header and size before a pixel is decoded, and a source over one is
/// answered 422, as imgproxy answers it.
public struct SourceLimits: Sendable, Equatable {
    /// `max_src_resolution`/`msr`: the most pixels of the frames decoded, in megapixels.
    public var resolution: Double?
    /// `max_src_file_size`/`msfs`: the most bytes of the source; 0 is no limit of the URL's own.
    public var fileSize: Int?
    /// `max_animation_frame_resolution`/`mafr`: the most pixels of one frame of an animation, in
    /// megapixels; for an animation, it takes the place of ``resolution``, as in imgproxy.
    public var frameResolution: Double?

    /// Limits of a URL's own; `nil` for none.
    public init(resolution: Double? = nil, fileSize: Int? = nil, frameResolution: Double? = nil) {
        self.resolution = resolution
        self.fileSize = fileSize
        self.frameResolution = frameResolution
    }

    /// Whether the URL set any.
    var isEmpty: Bool { self == SourceLimits() }

    /// What sets these limits apart, for the checking step's identifier: a step that refuses
    /// more sources is another step, whose result must not be shared with a laxer one's.
    var key: String { [resolution.resultKeyText, fileSize.resultKeyText, frameResolution.resultKeyText].joined(separator: ":") }

    /// Refuses a source over these limits, as imgproxy's security checker does: an animation
    /// with more than one frame decoded by its frame resolution when one is given, anything
    /// else by its pixels over every frame decoded.
    func check(_ metadata: ImageMetadata, bytes: Int, maximumFrames: Int) throws(SourceLimitExceeded) {
        if let fileSize, fileSize > 0, bytes > fileSize {
            throw SourceLimitExceeded(option: "max_src_file_size", "the source's \(bytes) bytes are over the URL's limit of \(fileSize)")
        }
        let frames = max(1, min(metadata.frameCount, maximumFrames))
        let pixels = Double(metadata.width) * Double(metadata.height)
        if frames > 1, let frameResolution, frameResolution > 0 {
            guard pixels <= frameResolution * 1_000_000 else {
                throw SourceLimitExceeded(option: "max_animation_frame_resolution",
                                          "a frame's \(metadata.width)x\(metadata.height) pixels are over the URL's \(frameResolution) megapixels")
            }
            return
        }
        if let resolution, pixels * Double(frames) > resolution * 1_000_000 {
            throw SourceLimitExceeded(option: "max_src_resolution",
                                      "the source's \(metadata.width)x\(metadata.height)\(frames > 1 ? "x\(frames) frames" : "") pixels are over the URL's \(resolution) megapixels")
        }
    }
}

/// A source over a limit the URL set (``SourceLimits``): 422, naming the option.
struct SourceLimitExceeded: Error, CustomStringConvertible {
    /// The option whose limit the source is over.
    let option: String
    let detail: String

    init(option: String, _ detail: String) {
        self.option = option
        self.detail = detail
    }

    var description: String { "\(detail) (\(option))" }
}

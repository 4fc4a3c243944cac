import Foundation
import LoupeCodecs
import LoupeProcessing

/// What Loupe tells about one image: the source's format, size as displayed, frames and bytes,
/// the size of the pixels made from it, and the colours and placeholder strings computed from
/// them.
///
/// One value for every output that shows it, so the fields mean and are named the same
/// everywhere: `loupe fetch --json` prints it (with the fetch's own fields beside it), the
/// service's `/info` answers it and each line of `/batch` carries it. As JSON: `format`,
/// `width`, `height`, `frames`, `bytes`, then when known `outputWidth` and `outputHeight`,
/// `dominantColor`, `backgroundColor` and `palette` (colours as `#rrggbb`; the two colours are
/// `null` when no pixel is opaque and non-white), `blurhash` and `thumbhash` (base64).
public struct ImageInfo: Codable, Sendable, Equatable {
    /// The source's encoded format.
    public var format: ImageFormat
    /// The image's width as displayed (EXIF orientation applied).
    public var width: Int
    /// The image's height as displayed.
    public var height: Int
    /// Frames in the source (1 for still images).
    public var frames: Int
    /// The source's size in bytes.
    public var bytes: Int
    /// The width of the pixels produced (a thumbnail, a processed result); `nil` when only the
    /// source was described.
    public var outputWidth: Int?
    /// The height of the pixels produced.
    public var outputHeight: Int?
    /// The colours, when they were computed.
    public var colors: Colors?
    /// The BlurHash of the pixels, when it was computed.
    public var blurhash: String?
    /// The ThumbHash of the pixels, base64-encoded, when it was computed.
    public var thumbhash: String?

    /// The poster feed's colours of an image.
    public struct Colors: Sendable, Equatable {
        /// ColorThief's dominant colour; `nil` when no pixel is opaque and non-white.
        public var dominant: RGBColor?
        /// The palette, largest box first; empty when there are no usable pixels.
        public var palette: [RGBColor]
        /// The poster feed's background: the dominant hue at saturation 0.08, brightness 0.95.
        public var background: RGBColor? { dominant?.backgroundColor }

        /// Colours as computed; `dominant` is `nil` and `palette` empty for an image with no
        /// usable pixels.
        public init(dominant: RGBColor?, palette: [RGBColor]) {
            self.dominant = dominant
            self.palette = palette
        }

        /// The dominant colour and a palette of up to `paletteSize` colours of `sample`, or no
        /// colours when it has no opaque, non-white pixel.
        public init(of sample: ColorSample, paletteSize: Int) throws(ColorExtractionError) {
            do throws(ColorExtractionError) {
                self.init(dominant: try sample.dominantColor(), palette: try sample.palette(count: paletteSize))
            } catch .noUsablePixels {
                self.init(dominant: nil, palette: [])
            }
        }
    }

    /// Describes an image; the optional parts are added as they are computed.
    public init(format: ImageFormat, width: Int, height: Int, frames: Int, bytes: Int,
                outputWidth: Int? = nil, outputHeight: Int? = nil, colors: Colors? = nil,
                blurhash: String? = nil, thumbhash: String? = nil) {
        self.format = format
        self.width = width
        self.height = height
        self.frames = frames
        self.bytes = bytes
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.colors = colors
        self.blurhash = blurhash
        self.thumbhash = thumbhash
    }

    private enum CodingKeys: String, CodingKey {
        case format, width, height, frames, bytes, outputWidth, outputHeight
        case dominantColor, backgroundColor, palette, blurhash, thumbhash
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(width, forKey: .width)
        try container.encode(height, forKey: .height)
        try container.encode(frames, forKey: .frames)
        try container.encode(bytes, forKey: .bytes)
        try container.encodeIfPresent(outputWidth, forKey: .outputWidth)
        try container.encodeIfPresent(outputHeight, forKey: .outputHeight)
        if let colors {
            // Explicit nulls: the colours were computed, and there were none.
            try container.encode(colors.dominant?.hex, forKey: .dominantColor)
            try container.encode(colors.background?.hex, forKey: .backgroundColor)
            try container.encode(colors.palette.map(\.hex), forKey: .palette)
        }
        try container.encodeIfPresent(blurhash, forKey: .blurhash)
        try container.encodeIfPresent(thumbhash, forKey: .thumbhash)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(ImageFormat.self, forKey: .format)
        width = try container.decode(Int.self, forKey: .width)
        height = try container.decode(Int.self, forKey: .height)
        frames = try container.decode(Int.self, forKey: .frames)
        bytes = try container.decode(Int.self, forKey: .bytes)
        outputWidth = try container.decodeIfPresent(Int.self, forKey: .outputWidth)
        outputHeight = try container.decodeIfPresent(Int.self, forKey: .outputHeight)
        if container.contains(.palette) {
            let palette = try container.decode([String].self, forKey: .palette).map { hex in
                guard let color = RGBColor(hex: hex) else {
                    throw DecodingError.dataCorruptedError(forKey: .palette, in: container, debugDescription: "'\(hex)' is not #rrggbb")
                }
                return color
            }
            let dominant = try container.decodeIfPresent(String.self, forKey: .dominantColor).map { hex in
                guard let color = RGBColor(hex: hex) else {
                    throw DecodingError.dataCorruptedError(forKey: .dominantColor, in: container, debugDescription: "'\(hex)' is not #rrggbb")
                }
                return color
            }
            colors = Colors(dominant: dominant, palette: palette)
        }
        blurhash = try container.decodeIfPresent(String.self, forKey: .blurhash)
        thumbhash = try container.decodeIfPresent(String.self, forKey: .thumbhash)
    }

    /// The BlurHash of `bitmap` as every output computes it: 4×3 components of the pixels
    /// scaled to fit 32 px.
    public static func blurhash(of bitmap: Bitmap) throws(ProcessingError) -> String {
        try BlurHash.encode(ImageProcessors.Resize(maxPixelSize: 32).process(bitmap))
    }

    /// The ThumbHash of `bitmap`, base64-encoded, as every output computes it.
    public static func thumbhash(of bitmap: Bitmap) throws(ProcessingError) -> String {
        Data(try ThumbHash.encode(bitmap)).base64EncodedString()
    }

    /// The JSON every output writes: keys sorted, slashes unescaped.
    public func json() throws -> Data {
        try Self.encoder.encode(self)
    }

    /// The encoder for ``ImageInfo`` and records that carry it.
    public static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}

import Foundation
import Loupe
import LoupeCodecs
import LoupeProcessing

/// What `loupe fetch` learned and made for one source that succeeded.
struct FetchedImage: Sendable, Equatable {
    /// The source's encoded format.
    var format: ImageFormat
    /// The image's size as displayed (EXIF orientation applied).
    var width: Int
    var height: Int
    /// The size of the pixels produced (the thumbnail, or the full size without one).
    var outputWidth: Int
    var outputHeight: Int
    /// Frames in the source (1 for still images).
    var frames: Int
    /// The source's size in bytes.
    var bytes: Int
    /// Where the data came from.
    var origin: ImageOrigin
    /// From the start of this source's work to its end.
    var duration: Duration
    /// With `--colors`: the colours, or `nil` colours when the image has no opaque,
    /// non-white pixel to take them from.
    var colors: ImageColors?
    /// With `--placeholder`.
    var placeholder: Placeholder?
    /// With `--out`: the file written.
    var path: String?
}

/// The poster feed's colours of an image.
struct ImageColors: Sendable, Equatable {
    /// ColorThief's dominant colour; `nil` when there are no usable pixels.
    var dominant: RGBColor?
    /// The poster feed's background: the dominant hue at saturation 0.08, brightness 0.95.
    var background: RGBColor? { dominant?.backgroundColor }
    /// The palette, largest box first; empty when there are no usable pixels.
    var palette: [RGBColor]
}

/// A placeholder string for an image still loading.
enum Placeholder: Sendable, Equatable {
    case blurhash(String)
    /// ThumbHash bytes, base64-encoded.
    case thumbhash(String)
}

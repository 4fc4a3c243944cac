import LoupeCodecs
import LoupeProcessing

/// What an imgproxy-style URL asks for, parsed and checked: the options Loupe supports, with
/// imgproxy's defaults. A value; its `resultKey` names everything that changes the result.
public struct ProcessingOptions: Sendable, Equatable {
    /// `resize`/`rs` type and `resizing_type`: how the image maps onto the box.
    public var resizingType: BoxResize.Mode = .fit
    /// Box width (0: open).
    public var width = 0
    /// Box height (0: open).
    public var height = 0
    /// `enlarge`/`el`.
    public var enlarge = false
    /// `dpr`: multiplies the box.
    public var dpr = 1.0
    /// `gravity`/`g`.
    public var gravity = Gravity.center
    /// `quality`/`q`: 1...100; `nil` for the server's default.
    public var quality: Int?
    /// `format`/`f`, or the URL's extension; `nil` to negotiate from `Accept`.
    public var format: ImageFormat?
    /// `background`/`bg`: the colour transparent pixels are flattened onto.
    public var background: RGBColor?
    /// `blur`/`bl`: Gaussian sigma in pixels (0: none).
    public var blur = 0.0
    /// `cachebuster`/`cb`: part of the result's identity only.
    public var cacheBuster = ""
    /// `expires`/`exp`: Unix time after which the URL is refused.
    public var expires: Int?
    /// `sharpen`/`sh`: sigma of the sharpening mask in pixels (0: none).
    public var sharpen = 0.0
    /// `pixelate`/`pix`: block size in pixels (0 or 1: none).
    public var pixelate = 0
    /// `format_quality`/`fq`: quality per output format, under `quality` (which wins) and over
    /// the server's `--format-quality`. Once the service has checked the options: the quality
    /// each lossy format gets, or empty when `quality` holds the one quality they all get.
    public var formatQuality: [ImageFormat: Int] = [:]
    /// `max_bytes`/`mb`: the largest result in bytes for JPEG, WebP and AVIF, reached by lowering
    /// the quality (0: no limit).
    public var maxBytes = 0
    /// `raw`: the source's bytes as they are, after the limits are checked.
    public var raw = false
    /// `skip_processing`/`skp`: source formats answered with the source's bytes when the result
    /// would have their format.
    public var skipProcessing: Set<ImageFormat> = []
    /// `filename`/`fn`: the download name's stem in `Content-Disposition` (`nil`: the source's).
    public var filename: String?
    /// `return_attachment`/`att`: `Content-Disposition: attachment` rather than `inline`.
    public var returnAttachment = false

    /// Creates imgproxy's defaults (no resize, source format, no blur).
    public init() {}

    /// The box in pixels, after `dpr`.
    var scaledBox: (width: Int, height: Int) {
        (Int((Double(width) * dpr).rounded()), Int((Double(height) * dpr).rounded()))
    }

    /// Everything that changes the result's bytes except the output format, in a stable text
    /// form (the signature and `expires` are not part of it: a key rotation keeps results).
    var resultKey: String {
        let box = scaledBox
        return "rs=\(resizingType.rawValue):\(box.width):\(box.height):\(enlarge ? 1 : 0)"
            + ";g=\(gravity.anchor.rawValue):\(gravity.offsetX):\(gravity.offsetY)"
            + ";q=\(quality.map(String.init) ?? "-");bg=\(background?.hex ?? "-");bl=\(blur);cb=\(cacheBuster)"
            + outputKey
    }
}

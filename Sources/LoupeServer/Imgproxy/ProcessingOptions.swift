import LoupeCodecs
import LoupeProcessing

/// What an imgproxy-style URL asks for, parsed and checked: the options Loupe supports, with
/// imgproxy's defaults. A value; each field is declared by the option that sets it
/// (`ImgproxyOption`), and its `resultKey` names everything that changes the result.
public struct ProcessingOptions: Sendable, Equatable {
    /// `resize`/`rs` type and `resizing_type`: how the image maps onto the box.
    public var resizingType: ImageProcessors.BoxResize.Mode = .fit
    /// Box width (0: open).
    public var width = 0
    /// Box height (0: open).
    public var height = 0
    /// `enlarge`/`el`.
    public var enlarge = false
    /// `dpr`: multiplies the box.
    public var dpr = 1.0
    /// `gravity`/`g`: where `fill` cuts (and `crop`, when it names none).
    public var gravity = Gravity.center
    /// `min-width`/`mw`: the result is at least this wide (0: no minimum).
    public var minWidth = 0
    /// `min-height`/`mh`: the result is at least this high (0: no minimum).
    public var minHeight = 0
    /// `zoom`/`z`: multiplies the scale, per axis.
    public var zoomX = 1.0
    /// `zoom`/`z`'s vertical factor.
    public var zoomY = 1.0
    /// `extend`/`ex`: the result is extended to the box (transparent, or the background).
    public var extend = false
    /// `extend`'s gravity.
    public var extendGravity = Gravity.center
    /// `extend_aspect_ratio`/`exar`: the result is extended to the box's aspect ratio.
    public var extendAspectRatio = false
    /// `extend_aspect_ratio`'s gravity.
    public var extendAspectRatioGravity = Gravity.center
    /// `crop`/`c` width: 0 none, 1 or more pixels, below 1 a share of the image.
    public var cropWidth = 0.0
    /// `crop`/`c` height, as `cropWidth`.
    public var cropHeight = 0.0
    /// `crop`'s own gravity; `nil` for `gravity`'s.
    public var cropGravity: Gravity?
    /// `trim`/`t` threshold; `nil`: no trim.
    public var trimThreshold: Double?
    /// `trim`'s colour; `nil`: the top-left pixel's.
    public var trimColor: RGBColor?
    /// `trim`'s equal horizontal sides.
    public var trimEqualHorizontal = false
    /// `trim`'s equal vertical sides.
    public var trimEqualVertical = false
    /// `padding`/`pd`, in CSS order, before the dpr.
    public var paddingTop = 0, paddingRight = 0, paddingBottom = 0, paddingLeft = 0
    /// `auto_rotate`/`ar`: whether the source is turned upright by its EXIF orientation before
    /// anything else; `nil` for the server's ``ServerSettings/autoRotates``.
    public var autoRotate: Bool?
    /// `enforce_thumbnail`/`eth`: whether the source's embedded thumbnail (HEIF, AVIF) is the
    /// image when it has one; `nil` for the server's ``ServerSettings/enforcesThumbnail``.
    public var enforceThumbnail: Bool?
    /// `preserve_hdr`/`ph`: whether a 16-bit source keeps its 16 bits per channel in a format that
    /// holds them; `nil` for the server's ``ServerSettings/preservesHDR``
    /// (`ResultEncoder.keepsDeepSamples(options:)`).
    public var preserveHDR: Bool?
    /// `rotate`/`rot`: clockwise degrees, 0, 90, 180 or 270.
    public var rotate = 0
    /// `flip`/`fl`: mirror left to right.
    public var flipHorizontal = false
    /// `flip`/`fl`: mirror top to bottom.
    public var flipVertical = false
    /// `max_result_dimension`/`mrd`: the result is scaled down to fit this side (imgproxy's
    /// rule); `nil`: none asked (the server's limit still refuses larger results).
    public var maxResultDimension: Int?
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
    /// `max_animation_frames`/`maf`: the most frames of an animation kept, the rest dropped; 1
    /// makes the result the first frame. Once the service has checked the options: the URL's
    /// value capped at the server's ``ServerSettings/maximumAnimationFrames``, or that setting.
    public var maxAnimationFrames: Int?
    /// `max_src_resolution`/`msr`: megapixels (``SourceLimits/resolution``).
    public var maxSourceResolution: Double?
    /// `max_src_file_size`/`msfs`: bytes (``SourceLimits/fileSize``).
    public var maxSourceFileSize: Int?
    /// `max_animation_frame_resolution`/`mafr`: megapixels (``SourceLimits/frameResolution``).
    public var maxAnimationFrameResolution: Double?
    /// The three security options above, as the source's check takes them.
    var sourceLimits: SourceLimits {
        SourceLimits(resolution: maxSourceResolution, fileSize: maxSourceFileSize, frameResolution: maxAnimationFrameResolution)
    }
    /// `raw`: the source's bytes as they are, after the limits are checked.
    public var raw = false
    /// `skip_processing`/`skp`: source formats answered with the source's bytes when the result
    /// would have their format.
    public var skipProcessing: Set<ImageFormat> = []
    /// `filename`/`fn`: the download name's stem in `Content-Disposition` (`nil`: the source's).
    public var filename: String?
    /// `return_attachment`/`att`: `Content-Disposition: attachment` rather than `inline`.
    public var returnAttachment = false

    /// `watermark`/`wm` opacity, 0...1 (0: no watermark); multiplied by the server's
    /// `--watermark-opacity`. Without a configured watermark, nothing is drawn (as imgproxy).
    public var watermarkOpacity = 0.0
    /// `watermark`'s position.
    public var watermarkPosition = WatermarkPosition.center
    /// `watermark`'s offsets (pixels from 1 up, a share of the side below 1; spacing when tiled).
    public var watermarkXOffset = 0.0, watermarkYOffset = 0.0
    /// `watermark`'s scale relative to the result's size (0: the mark's own size).
    public var watermarkScale = 0.0

    /// A thumbor URL's geometry (``ThumborURL``), which replaces imgproxy's when set; `nil` for
    /// imgproxy URLs.
    var thumbor: ThumborGeometry?
    /// thumbor's `max_age(n)`: this result's `Cache-Control` max-age in seconds, in place of
    /// the server's `--ttl`; `nil`: the server's.
    var maxAge: Int?
    /// thumbor's pixel filters without an imgproxy twin, in the URL's order, run after the
    /// transform and imgproxy's filters; empty for imgproxy URLs.
    var thumborFilters = ThumborFilterSteps()
    /// thumbor's `watermark(…)` filters, in the URL's order, drawn after ``thumborFilters``.
    var thumborWatermarks: [ThumborWatermark] = []
    /// thumbor's `frame(url)` filters' images (`http://` in front when they name no scheme),
    /// drawn after the marks.
    var thumborFrames: [String] = []

    /// Creates imgproxy's defaults (no resize, source format, no blur).
    public init() {}

    /// The box in pixels, after `dpr` and `zoom`, padding included: what the URL alone asks
    /// for, checked against the server's limit before any work.
    var scaledBox: (width: Int, height: Int) {
        let padding = (GeometryMath.scaleToEven(paddingLeft, dpr) + GeometryMath.scaleToEven(paddingRight, dpr),
                       GeometryMath.scaleToEven(paddingTop, dpr) + GeometryMath.scaleToEven(paddingBottom, dpr))
        return (GeometryMath.scale(width, dpr * zoomX) + padding.0, GeometryMath.scale(height, dpr * zoomY) + padding.1)
    }
}

import Foundation
import LoupeCodecs
import LoupeProcessing

/// Encodes a result in the format and at the quality its ``OutputChoice`` decided, with JPEG's
/// flattening of transparency and `max_bytes`, which lowers the quality until the result fits;
/// and the quality each lossy format gets (imgproxy's order: the URL's `quality`, its
/// `format_quality`, the server's `--format-quality`, then `--quality`), which a request's
/// output choice is made with.
struct ResultEncoder: Sendable {
    /// The output format.
    let format: ImageFormat
    /// The quality to start from (lossy formats only).
    let quality: Int
    /// The largest result in bytes (0: no limit); only lossy formats can be shrunk to it.
    let maxBytes: Int
    /// Whether a result whose pixels are all grey is written grey where the format can hold it
    /// (``keepsGrey(source:options:)``).
    let keepsGrey: Bool
    /// Whether a result with 16-bit samples is written at 16 bits where the format can hold
    /// them (``keepsDeepSamples(options:)``).
    let keepsDeepSamples: Bool

    /// The lowest quality `max_bytes` goes down to, as imgproxy's: below it, a result that
    /// still does not fit is answered as it is.
    static let lowestFittingQuality = 10

    /// The encoder for what `output` decided, fitting the result to `maxBytes` (0: no limit),
    /// writing grey pixels as grey with `keepsGrey`.
    init(output: OutputDecision, maxBytes: Int, keepsGrey: Bool = false, keepsDeepSamples: Bool = false) {
        format = output.format
        quality = output.quality
        self.maxBytes = maxBytes
        self.keepsGrey = keepsGrey
        self.keepsDeepSamples = keepsDeepSamples
    }

    /// Whether a result made with `options` keeps a 16-bit source's 16 bits per channel,
    /// imgproxy's rule: only when `preserve_hdr` (or the server's `--preserve-hdr`, folded into
    /// the options by `ImageService.check(_:now:)`) asks, and then in PNG, the one format
    /// written at 16 bits here (`ImageEncoder.keepsDeepSamples`); a 16-bit source's other
    /// results, and every result without it, have 8 bits. The decode keeps the samples
    /// (`ImageRequest.keepsDeepSamples`) under the same rule, before the format is known.
    static func keepsDeepSamples(options: ProcessingOptions) -> Bool {
        options.preserveHDR == true && options.format.map { $0 == .png } ?? true
    }

    /// Whether a result made from `source` with `options` stays grey, imgproxy's rule: a grey
    /// source keeps its grey colour space in PNG, JPEG and TIFF unless processing adds colour —
    /// a background that is not grey, or colour the result's pixels show (a coloured
    /// watermark, thumbor's colour filters), which the encoder checks.
    static func keepsGrey(source: ImageMetadata, options: ProcessingOptions) -> Bool {
        guard source.isGrey else { return false }
        return options.background.map { $0.red == $0.green && $0.red == $0.blue } ?? true
    }

    /// The quality `format` gets: the first set of the URL's `quality`, the URL's
    /// `format_quality`, the server's `--format-quality`, the server's `--quality`.
    static func quality(for format: ImageFormat, options: ProcessingOptions, settings: ServerSettings) -> Int {
        options.quality ?? options.formatQuality[format] ?? settings.formatQuality[format] ?? settings.defaultQuality
    }

    /// Whether the format is written with a quality (and so can be fitted to `max_bytes`).
    var isLossy: Bool { format.isLossy }

    /// `bitmap` encoded; `transparent` says whether it has transparency (asked once by the
    /// caller), `flattened` whether the URL's `background` already removed it.
    func encode(_ bitmap: Bitmap, transparent: Bool, flattened: Bool) throws -> Data {
        try encode([ImageFrame(bitmap: bitmap)], loopCount: 0, transparent: transparent, flattened: flattened)
    }

    /// `frames` encoded: an animation played `loopCount` times (0: forever) in GIF and WebP,
    /// the first frame alone in the formats that cannot animate. `transparent` says whether the
    /// first frame has transparency (asked once by the caller), `flattened` whether the URL's
    /// `background` already removed it.
    func encode(_ frames: [ImageFrame], loopCount: Int, transparent: Bool, flattened: Bool) throws -> Data {
        guard var frames = frames.first.map({ format.animates ? frames : [$0] }), !frames.isEmpty else {
            throw ImageCodecError.invalidBitmap("no frames to encode")
        }
        if max(frames[0].bitmap.width, frames[0].bitmap.height) > format.maximumSide {
            // A result larger than its format holds is scaled to fit, as imgproxy does (an icon
            // to 256 pixels, HEIC to 16,384, WebP to 16,383), rather than refused.
            let fit = ImageProcessors.Resize(maxPixelSize: format.maximumSide)
            frames = try frames.map { ImageFrame(bitmap: try fit.process($0.bitmap), duration: $0.duration) }
        }
        if format == .jpeg, !flattened, transparent {
            // JPEG has no alpha: flatten onto white rather than leave what lies under
            // transparent pixels visible.
            frames[0].bitmap = try ImageProcessors.Flatten(background: RGBColor(red: 255, green: 255, blue: 255)).process(frames[0].bitmap)
        }
        var quality = self.quality
        while true {
            let data = try ImageEncoder(embedsSRGBProfile: false, keepsGrey: keepsGrey, keepsDeepSamples: keepsDeepSamples).encode(frames, loopCount: loopCount,
                                                                                            as: format.encoderFormat(quality: quality))
            guard isLossy, maxBytes > 0, data.count > maxBytes, quality > Self.lowestFittingQuality else { return data }
            quality = Self.nextQuality(after: quality, size: data.count, target: maxBytes)
        }
    }

    /// The next quality to try after `quality` gave `size` bytes over `target`: a step as large
    /// as the overshoot (×0.25 over 3 times the target, ×0.5 over 1.5 times, else ×0.75,
    /// rounded half away from zero), always at least one lower and never under 1 — imgproxy's
    /// steps, so that a URL fits at the quality imgproxy's would.
    static func nextQuality(after quality: Int, size: Int, target: Int) -> Int {
        let overshoot = Double(size) / Double(target)
        let factor = overshoot > 3 ? 0.25 : overshoot > 1.5 ? 0.5 : 0.75
        let scaled = Int((Double(quality) * factor).rounded(.toNearestOrAwayFromZero))
        return max(1, min(quality - 1, scaled))
    }
}

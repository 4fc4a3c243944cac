import LoupeCodecs
import LoupeProcessing

/// imgproxy's filters, watermark, metadata and output options.
extension ImgproxyOption {
    static let filtersAndOutput: [ImgproxyOption] = [
        ImgproxyOption(["background", "bg"], arguments: 1...3, fields: [OptionField(\.background, key: "bg")], documentation: .init(
            meaning: "colour under transparency (hex `rgb`/`rrggbb` or `r:g:b`); empty removes it", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            // An empty colour removes an earlier one, as in imgproxy.
            if arguments.count == 1 {
                options.background = arguments[0].isEmpty ? nil : try arguments.hexColor(arguments[0])
                return
            }
            guard arguments.count == 3, let r = UInt8(arguments[0]), let g = UInt8(arguments[1]), let b = UInt8(arguments[2]) else {
                throw .badOption("background takes a hex colour or three numbers 0...255")
            }
            options.background = RGBColor(red: r, green: g, blue: b)
        },
        ImgproxyOption(["blur", "bl"], arguments: 1...1, fields: [OptionField(\.blur, key: "bl")],
                       documentation: .init(meaning: "Gaussian blur sigma", loupe: "yes", differences: "sigma at most 100")
        ) { arguments, options throws(ServiceError) in
            guard let sigma = Double(arguments[0]), sigma >= 0, sigma <= ImageProcessors.GaussianBlur.maximumSigma else {
                throw .badOption("blur '\(arguments[0])' is not a number in 0...\(Int(ImageProcessors.GaussianBlur.maximumSigma))")
            }
            options.blur = sigma
        },
        ImgproxyOption(["sharpen", "sh"], arguments: 1...1, fields: [OptionField(\.sharpen, key: "sh")], documentation: .init(
            meaning: "libvips' sharpen with this sigma, after the cut to the result box, before extend and padding; 0 is none",
            loupe: "yes: unsharp mask on CIE L* with libvips' default curve (differences under 2 L* left alone, ×3 "
                + "beyond, +10/−20 caps); colours premultiplied where alpha is below 255",
            differences: "sigma at most 100; the L* round trip uses D65 sRGB formulas, so a pixel may differ from libvips' by "
                + "a level (`OutputOptionsTests`, `SharpenPixelateTests`)")
        ) { arguments, options throws(ServiceError) in
            guard let sigma = Double(arguments[0]), sigma.isFinite, sigma >= 0, sigma <= ImageProcessors.Sharpen.maximumSigma else {
                throw .badOption("sharpen '\(arguments[0])' in '\(arguments.name)' is not a number in 0...\(Int(ImageProcessors.Sharpen.maximumSigma))")
            }
            options.sharpen = sigma
        },
        .wholeNumber(["pixelate", "pix"], \.pixelate, key: "pix", unit: "pixels", documentation: .init(
            meaning: "blocks of this size from the top-left corner, each its pixels' average, the image mirror-padded to "
                + "whole blocks; the size clamped to the longer side; 0 and 1 are none",
            loupe: "yes, same alignment, mirroring and clamp",
            differences: "one rounding of each block's mean (libvips rounds its two shrink passes apart) (same tests)")),
        ImgproxyOption(["watermark", "wm"], arguments: 1...7,
                       fields: [OptionField(\.watermarkOpacity, key: "wmo"), OptionField(\.watermarkPosition, key: "wmp"),
                                OptionField(\.watermarkXOffset, key: "wmx"), OptionField(\.watermarkYOffset, key: "wmy"),
                                OptionField(\.watermarkScale, key: "wms")], documentation: .init(
            meaning: "draw the configured watermark (`IMGPROXY_WATERMARK_PATH`/`_URL`/`_DATA`): opacity 0–1 × "
                + "`IMGPROXY_WATERMARK_OPACITY` (0: none), position `ce`, compass points or `re` (tiled, offsets as "
                + "spacing), offsets (pixels × dpr from 1, shares below 1), scale of the result's size; drawn last, "
                + "after flattening; without a watermark image, nothing is drawn",
            loupe: "yes: same placement, rounding and tiling; blended source-over in premultiplied terms; the sixth and "
                + "seventh arguments (Pro's) are accepted and ignored",
            differences: "offsets are multiplied by the URL's `dpr` rather than the dpr imgproxy actually applied when it "
                + "could not enlarge; the mark is scaled with Loupe's Lanczos, not libvips' (`WatermarkTests`, "
                + "`WatermarkPillowTests` against Pillow's `alpha_composite`, `WatermarkServingTests`, "
                + "`ServeWatermarkTests`)"),
            apply: applyWatermark),
        ImgproxyOption(["strip_metadata", "sm"], arguments: 1...1, documentation: .init(
            meaning: "drop metadata", loupe: "`sm:1` only", differences: "results never carry the source's metadata")
        ) { arguments, _ throws(ServiceError) in
            // Results never carry the source's metadata (the encoders write none), so only
            // `true` can be honoured.
            guard try arguments.boolean(arguments[0]) else {
                throw .badOption("strip_metadata:false is not supported: results never carry the source's metadata")
            }
        },
        ImgproxyOption(["keep_copyright", "kcr"], arguments: 1...1, documentation: .init(
            meaning: "keep the copyright metadata while stripping (on by default)", loupe: "`kcr:0` only",
            differences: "results carry no metadata at all, copyright included: `kcr:1` is a 400 "
                + "(`OutputOptionsTests.metadataOptionsAcceptWhatResultsAreAndRefuseTheRest`)")
        ) { arguments, _ throws(ServiceError) in
            // Results carry no metadata at all (the encoders write none), so the copyright a
            // source may carry cannot be kept; only dropping it is honest.
            guard try !arguments.boolean(arguments[0]) else {
                throw .badOption("keep_copyright:true is not supported: results never carry the source's metadata, copyright included")
            }
        },
        ImgproxyOption(["strip_color_profile", "scp"], arguments: 1...1, documentation: .init(
            meaning: "convert to sRGB and drop the ICC profile (on by default)", loupe: "`scp:1` only",
            differences: "every result is sRGB without a profile: `scp:0` (keep a wide-gamut profile) is a 400 (same test)")
        ) { arguments, _ throws(ServiceError) in
            // Every result is converted to sRGB and written without a profile: exactly what
            // stripping means; keeping a source's (wide-gamut) profile is not possible here.
            guard try arguments.boolean(arguments[0]) else {
                throw .badOption("strip_color_profile:false is not supported: results are always converted to sRGB and carry no profile")
            }
        },
        ImgproxyOption(["preserve_hdr", "ph"], arguments: 1...1, fields: [OptionField(\.preserveHDR, key: "ph")], documentation: .init(
            meaning: "keep more than 8 bits per channel when the source has them and the result's format can hold them; off by default",
            loupe: "yes; without the option, `--preserve-hdr` (`IMGPROXY_PRESERVE_HDR`) decides",
            differences: "a 16-bit PNG or TIFF (RGB, grey, with alpha or not) gives a 16-bit PNG (RGB16, or Grey16 while it stays grey) "
                + "through resize, crop, extend, padding, background and watermark, a PNG's gamma converted at 16 bits; any other step, an "
                + "ICC profile to convert, an EXIF rotation, or a format other than PNG gives 8 bits (`SixteenBitResultTests`)")
        ) { arguments, options throws(ServiceError) in
            options.preserveHDR = try arguments.boolean(arguments[0])
        },
        ImgproxyOption(["enforce_thumbnail", "eth"], arguments: 1...1, fields: [OptionField(\.enforceThumbnail, key: "eth")], documentation: .init(
            meaning: "use the source's embedded thumbnail (HEIF and AVIF thumbnail items) as the image when it has one", loupe: "yes",
            differences: "without the option, `--enforce-thumbnail` (`IMGPROXY_ENFORCE_THUMBNAIL`) decides")
        ) { arguments, options throws(ServiceError) in
            options.enforceThumbnail = try arguments.flag(arguments[0])
        },
        ImgproxyOption(["quality", "q"], arguments: 1...1, fields: [OptionField(\.quality, key: "q")],
                       documentation: .init(meaning: "output quality", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            guard let quality = Int(arguments[0]), (0...100).contains(quality) else {
                throw .badOption("quality '\(arguments[0])' is not in 0...100")
            }
            options.quality = quality == 0 ? nil : quality
        },
        ImgproxyOption(["format_quality", "fq"], arguments: 2...Int.max, fields: [OptionField(\.formatQuality, key: "fq")], documentation: .init(
            meaning: "`format:quality` pairs, under `quality`, over `IMGPROXY_FORMAT_QUALITY` and `IMGPROXY_QUALITY`; 0 is \"not set\"",
            loupe: "yes; the server setting is `--format-quality jpeg=80,webp=70`",
            differences: "formats Loupe never writes with a quality (png, gif, ico, svg, bmp, tiff) are accepted "
                + "and change nothing; the defaults are imgproxy's, `webp=79,avif=63,jxl=77` and `--quality` (80) for the others "
                + "(`OutputOptionsTests.formatQualityPrecedence`, `DefaultQualityTests`)")
        ) { arguments, options throws(ServiceError) in
            guard arguments.count % 2 == 0 else {
                throw .badOption("option '\(arguments.name)' takes format:quality pairs, got \(arguments.count) arguments")
            }
            for pair in stride(from: 0, to: arguments.count, by: 2) {
                let formatName = arguments[pair], qualityText = arguments[pair + 1]
                let format = try arguments.imageFormat(formatName)
                guard let quality = Int(qualityText), (0...100).contains(quality) else {
                    throw .badOption("quality '\(qualityText)' for \(formatName) in '\(arguments.name)' is not in 0...100")
                }
                // 0 is imgproxy's "not set"; formats Loupe never writes lossily have nothing to set.
                guard let format else { continue }
                options.formatQuality[format] = quality == 0 ? nil : quality
            }
        },
        // At most 2^40 bytes: far above any result a quality can shrink, and small enough that no
        // arithmetic on it overflows.
        .wholeNumber(["max_bytes", "mb"], \.maxBytes, key: "mb", unit: "bytes", largest: 1 << 40, documentation: .init(
            meaning: "re-encode at lower qualities until the result fits: ×0.25 when over 3× the limit, ×0.5 over 1.5×, "
                + "else ×0.75, at least one lower; stops at quality 10 with whatever size",
            loupe: "yes, for JPEG, WebP, AVIF, JPEG XL and HEIC, the same steps",
            differences: "— (`OutputOptionsTests.maxBytesLowersTheQualityUntilTheResultFits` for all three formats)")),
        ImgproxyOption(["format", "f", "ext"], arguments: 1...1, fields: [OptionField(\.format, key: "f")],
                       documentation: .init(
                           meaning: "output format", loupe: "jpg, png, webp, avif, gif, jxl, heic, tiff, bmp, ico, svg",
                           differences: "`svg`, as imgproxy: an SVG source answered as itself, sanitised with `--sanitize-svg`, "
                               + "processing options ignored; any other source 422; TIFF is written Deflate-compressed (imgproxy: "
                               + "uncompressed); a result larger than its format holds is scaled to fit, as imgproxy does (ICO 256, "
                               + "HEIC 16,384, WebP 16,383) (`SVGServiceTests`)")
        ) { arguments, options throws(ServiceError) in
            options.format = try ImgproxyURL.format(named: arguments[0])
        },
    ]

    /// An option whose one argument is a whole number, 0 up to `largest`, for a field of the result.
    static func wholeNumber(_ names: [String], _ keyPath: WritableKeyPath<ProcessingOptions, Int> & Sendable, key: String, unit: String,
                            largest: Int = Int.max, documentation: Documentation) -> ImgproxyOption {
        ImgproxyOption(names, arguments: 1...1, fields: [OptionField(keyPath, key: key)],
                       documentation: documentation) { arguments, options throws(ServiceError) in
            guard let value = Int(arguments[0]), value >= 0, value <= largest else {
                throw .badOption("\(names[0]) '\(arguments[0])' in '\(arguments.name)' is not a whole number of \(unit), 0 or more")
            }
            options[keyPath: keyPath] = value
        }
    }

    /// `watermark`/`wm` (`%opacity:%position:%x_offset:%y_offset:%scale`). As imgproxy: the
    /// opacity is required, 0...1 (0: no watermark); the other arguments may be empty (their
    /// defaults: centre, no offsets, the mark's own size); a scale, when given, is above 0; the
    /// sixth and seventh arguments (Pro's) are ignored.
    static func applyWatermark(_ arguments: OptionArguments, to options: inout ProcessingOptions) throws(ServiceError) {
        func number(_ text: String, _ what: String) throws(ServiceError) -> Double {
            guard let value = Double(text), value.isFinite, abs(value) <= Double(1 << 20) else {
                throw .badOption("\(what) '\(text)' in '\(arguments.name)' is not a number")
            }
            return value
        }
        guard let opacity = Double(arguments[0]), (0...1).contains(opacity) else {
            throw .badOption("opacity '\(arguments[0])' in '\(arguments.name)' is not a number in 0...1")
        }
        options.watermarkOpacity = opacity
        if let text = arguments.given(1) {
            guard let position = WatermarkPosition(rawValue: text) else {
                let names = WatermarkPosition.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badOption("position '\(text)' in '\(arguments.name)' is not one of \(names)")
            }
            options.watermarkPosition = position
        }
        if let text = arguments.given(2) { options.watermarkXOffset = try number(text, "x offset") }
        if let text = arguments.given(3) { options.watermarkYOffset = try number(text, "y offset") }
        if let text = arguments.given(4) {
            let scale = try number(text, "scale")
            guard scale > 0 else { throw .badOption("scale '\(text)' in '\(arguments.name)' is not a number above 0") }
            options.watermarkScale = scale
        }
    }
}

import LoupeCodecs
import LoupeProcessing

/// thumbor's filters, one declaration each. Those with an imgproxy twin set the twin's field of
/// ``ProcessingOptions`` (so the same processor and result-key part); those that act on the
/// geometry set ``ThumborGeometry``'s.
extension ThumborFilter {
    static let all: [ThumborFilter] = [
        ThumborFilter("quality", arguments: 1...1, "JPEG/WebP/AVIF quality 0–100: imgproxy's `quality` (0 is the server's default, as imgproxy's `q:0`)") { call, options throws(ServiceError) in
            let value = try call.integer(0, in: 0...100)
            options.quality = value == 0 ? nil : value
        },
        ThumborFilter("format", arguments: 1...1, "output format (`jpeg`, `jpg`, `png`, `webp`, `avif`, `gif`): imgproxy's `format`; `heic`/`heif`, which Loupe does not write, and unknown names keep the negotiated format, as thumbor drops an unknown one") { call, options throws(ServiceError) in
            guard let name = call.given(0) else { throw call.bad("names no format") }
            options.format = try? ImgproxyURL.format(named: name)
        },
        ThumborFilter("max_bytes", arguments: 1...1, "largest result in bytes, reached by lowering the quality: imgproxy's `max_bytes`") { call, options throws(ServiceError) in
            options.maxBytes = try call.integer(0, in: 1...OptionArguments.largestArgument * 64)
        },
        ThumborFilter("max_age", arguments: 1...1, "this result's `Cache-Control` max-age in seconds, in place of `--ttl`") { call, options throws(ServiceError) in
            options.maxAge = try call.integer(0, in: 0...315_360_000)
        },
        ThumborFilter("blur", arguments: 1...2, "Gaussian blur `blur(radius[, sigma])`, sigma the radius when 0 or absent: imgproxy's `blur` with that sigma (at most 100); thumbor's kernel stops at 150 pixels, Loupe's at three sigmas") { call, options throws(ServiceError) in
            let radius = try call.number(0, in: 0.000_001...150)
            let sigma = call.given(1) == nil ? 0 : try call.number(1, in: 0...GaussianBlur.maximumSigma)
            options.blur = min(sigma == 0 ? radius : sigma, GaussianBlur.maximumSigma)
        },
        ThumborFilter("background_color", arguments: 1...1, "colour under transparency (hex or a basic colour name): imgproxy's `background`") { call, options throws(ServiceError) in
            options.background = try color(call)
        },
        ThumborFilter("fill", arguments: 1...2, "the image centred on a canvas of the asked size: a hex or basic colour name (imgproxy's `background` under it), or `transparent`; `blur` and `auto` are a 400") { call, options throws(ServiceError) in
            if call.given(0) == "transparent" {
                options.background = nil
            } else {
                options.background = try color(call)
            }
            options.thumbor?.fillsBox = true
        },
        ThumborFilter("rotate", arguments: 1...1, "counter-clockwise rotation by a multiple of 90° (others ignored, as thumbor): imgproxy's `rotate` (clockwise), after the transform") { call, options throws(ServiceError) in
            let degrees = try call.integer(0, in: -OptionArguments.largestArgument...OptionArguments.largestArgument)
            guard degrees % 90 == 0 else { return }
            options.rotate = (360 - ((degrees % 360) + 360) % 360) % 360
        },
        ThumborFilter("strip_exif", arguments: 0...0, "drop EXIF: results never carry the source's metadata") { _, _ in },
        ThumborFilter("strip_icc", arguments: 0...0, "drop the ICC profile: results are sRGB without a profile") { _, _ in },
        ThumborFilter("upscale", arguments: 0...0, "a `fit-in` result smaller than the box is enlarged to it") { _, options in options.thumbor?.upscale = true },
        ThumborFilter("no_upscale", arguments: 0...0, "the target is no larger than the source") { _, options in options.thumbor?.noUpscale = true },
        ThumborFilter("stretch", arguments: 0...0, "resize to the target without cutting to its ratio") { _, options in options.thumbor?.stretch = true },
        ThumborFilter("proportion", arguments: 1...1, "the result scaled by 0 < p ≤ 1 (other values ignored, as thumbor)") { call, options throws(ServiceError) in
            options.thumbor?.proportion = try call.number(0, in: -1_000_000...1_000_000)
        },
        ThumborFilter("focal", arguments: 1...1, "`focal(AxB:CxD)`: a focal point, the box's centre weighted by its area, that the crop centres on") { call, options throws(ServiceError) in
            let numbers = (call.given(0) ?? "").split(whereSeparator: { $0 == "x" || $0 == ":" }).compactMap { Int($0) }
            guard numbers.count == 4, numbers.allSatisfy({ (0...OptionArguments.largestArgument).contains($0) }) else {
                throw call.bad("'\(call.given(0) ?? "")' is not a box AxB:CxD")
            }
            let width = numbers[2] - numbers[0], height = numbers[3] - numbers[1]
            guard width != 0, height != 0 else { return }
            options.thumbor?.focalPoints.append(ThumborGeometry.FocalPoint(x: numbers[0] + width / 2, y: numbers[1] + height / 2,
                                                                           weight: Double(width * height)))
        },
        .ignored("sharpen", arguments: 3...3, "thumbor's own sharpening (amount, radius, luminance only) has no twin"),
        .ignored("grayscale", arguments: 0...0, "no imgproxy twin built"),
        .ignored("brightness", arguments: 1...1, "no imgproxy twin built"),
        .ignored("contrast", arguments: 1...1, "no imgproxy twin built"),
        .ignored("rgb", arguments: 3...3, "no imgproxy twin built"),
        .ignored("saturation", arguments: 1...1, "no imgproxy twin built"),
        .ignored("equalize", arguments: 0...0, "no imgproxy twin built"),
        .ignored("noise", arguments: 1...2, "no imgproxy twin built"),
        .ignored("convolution", arguments: 3...3, "no imgproxy twin built"),
        .ignored("curve", arguments: 4...4, "no imgproxy twin built"),
        .ignored("round_corner", arguments: 4...5, "no imgproxy twin in Loupe"),
        .ignored("watermark", arguments: 4...7, "thumbor's per-URL watermark image is not loaded"),
        .ignored("frame", arguments: 1...1, "nine-patch frames are not built"),
        .ignored("extract_focal", arguments: 0...0, "focal points from the source URL's own crop are not read"),
        .ignored("autojpg", arguments: 0...1, "the format follows the source's rule and `Accept`"),
        .ignored("cover", arguments: 0...0, "an animation's first frame: `--max-animation-frames` decides"),
        .ignored("red_eye", arguments: 0...0, "no red-eye removal"),
        .ignored("colorize", arguments: 4...4, "no imgproxy twin built"),
    ]

    /// A hex colour (`rgb`, `rrggbb`) or one of a few names thumbor's engine (PIL) knows.
    static func color(_ call: ThumborFilterCall) throws(ServiceError) -> RGBColor {
        let text = (call.given(0) ?? "").lowercased()
        let names: [String: RGBColor] = ["white": RGBColor(red: 255, green: 255, blue: 255), "black": RGBColor(red: 0, green: 0, blue: 0),
                                         "red": RGBColor(red: 255, green: 0, blue: 0), "lime": RGBColor(red: 0, green: 255, blue: 0),
                                         "green": RGBColor(red: 0, green: 128, blue: 0), "blue": RGBColor(red: 0, green: 0, blue: 255),
                                         "yellow": RGBColor(red: 255, green: 255, blue: 0), "gray": RGBColor(red: 128, green: 128, blue: 128),
                                         "grey": RGBColor(red: 128, green: 128, blue: 128)]
        if let named = names[text] { return named }
        do {
            return try OptionArguments(name: call.name, values: [text]).hexColor(text)
        } catch {
            throw call.bad("'\(call.given(0) ?? "")' is not a hex colour or a colour name (\(names.keys.sorted().joined(separator: ", ")))")
        }
    }
}

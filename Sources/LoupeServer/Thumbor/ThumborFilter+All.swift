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
        ThumborFilter("blur", arguments: 1...2, "thumbor's Gaussian blur `blur(radius[, sigma])`: the kernel cut at the radius (at most 150), sigma the radius when 0 or absent; `blur(0)` leaves the image as it is (`ImageProcessors.ThumborBlur`)") { call, options throws(ServiceError) in
            let radius = try call.integer(0, in: 0...OptionArguments.largestArgument)
            let sigma = call.given(1) == nil ? 0 : abs(try call.number(1, in: -1_000_000...1_000_000))
            // thumbor refuses a radius of 0, and a refused filter is left out: the image unchanged.
            if let blur = ImageProcessors.ThumborBlur(radius: radius, sigma: sigma) { options.thumborFilters.steps.append(blur) }
        },
        ThumborFilter("background_color", arguments: 1...1, "colour under transparency (hex or a basic colour name): imgproxy's `background`; `auto`, the image's average colour, is `ImageProcessors.Backdrop` after the other filters") { call, options throws(ServiceError) in
            if call.given(0) == "auto" {
                options.thumborFilters.steps.append(ImageProcessors.Backdrop(width: nil, height: nil, style: .averageColor, merges: true))
            } else {
                options.background = try color(call)
            }
        },
        ThumborFilter("fill", arguments: 1...2, "the image centred on a canvas of the asked size: a hex or basic colour name (imgproxy's `background` under it), `transparent`, `auto` (the image's average colour) or `blur` (the image through thumbor's `blur(50)` at its own size, then stretched: `ImageProcessors.Backdrop`); a second argument `true` composites a transparent image over the canvas") { call, options throws(ServiceError) in
            switch call.given(0) {
            case "transparent": options.background = nil
            case "auto": options.thumbor?.fillStyle = .averageColor
            case "blur": options.thumbor?.fillStyle = .blurred(radius: Self.fillBlurRadius)
            default: options.background = try color(call)
            }
            options.thumbor?.fillMerges = call.given(1) == nil ? false : try call.boolean(1)
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
        ThumborFilter("sharpen", arguments: 3...3, "`sharpen(amount,radius,luminance_only)`: thumbor's wavelet sharpening (five levels, the detail of level l multiplied by amount · e^(−(l − radius)²/1.5) + 1; only JPEG's luma with `true`), not imgproxy's unsharp mask: `ImageProcessors.WaveletSharpen`") { call, options throws(ServiceError) in
            let step = ImageProcessors.WaveletSharpen(amount: try call.number(0, in: -1000...1000), radius: try call.number(1, in: -100...100),
                                      luminanceOnly: try call.boolean(2))
            options.thumborFilters.steps.append(step)
        },
        ThumborFilter("grayscale", arguments: 0...0, "each pixel's luma (ITU-R 601, as PIL's `L`) in red, green and blue: `ImageProcessors.ColorTransform.grayscale`") { _, options in
            options.thumborFilters.steps.append(ImageProcessors.ColorTransform.grayscale)
        },
        ThumborFilter("brightness", arguments: 1...1, "`brightness(n)`: n % of 255 added to each channel (n a whole number; past ±100 the same as ±100): `ImageProcessors.ChannelTables.brightness`") { call, options throws(ServiceError) in
            options.thumborFilters.steps.append(ImageProcessors.ChannelTables.brightness(percent: min(max(try call.integer(0, in: Self.wholeNumbers), -100), 100)))
        },
        ThumborFilter("contrast", arguments: 1...1, "`contrast(n)`: each channel scaled about 128 by (n + 100)² / 100 % (n a whole number): `ImageProcessors.ChannelTables.contrast`") { call, options throws(ServiceError) in
            options.thumborFilters.steps.append(ImageProcessors.ChannelTables.contrast(percent: try call.integer(0, in: Self.wholeNumbers)))
        },
        ThumborFilter("rgb", arguments: 3...3, "`rgb(r,g,b)`: each channel shifted by its own % of 255 (whole numbers; past ±100 the same as ±100): `ImageProcessors.ChannelTables.channelOffset`") { call, options throws(ServiceError) in
            let values = try (0..<3).map { index throws(ServiceError) in min(max(try call.integer(index, in: Self.wholeNumbers), -100), 100) }
            options.thumborFilters.steps.append(ImageProcessors.ChannelTables.channelOffset(red: values[0], green: values[1], blue: values[2]))
        },
        ThumborFilter("saturation", arguments: 1...1, "`saturation(f)`: each channel pushed from the pixel's brightness by the factor f (0 grey, 1 unchanged): `ImageProcessors.ColorTransform.saturation`") { call, options throws(ServiceError) in
            options.thumborFilters.steps.append(ImageProcessors.ColorTransform.saturation(factor: try call.number(0, in: -1000...1000)))
        },
        ThumborFilter("equalize", arguments: 0...0, "each channel through its histogram's cumulative distribution (thumbor's minimum rule): `ImageProcessors.Equalize`") { _, options in
            options.thumborFilters.steps.append(ImageProcessors.Equalize())
        },
        ThumborFilter("noise", arguments: 1...2, "`noise(amount[,seed])`: one random offset in ±amount/2 a pixel, from glibc's `random()` after `srandom(seed)` as thumbor on Linux draws it (so a seeded URL gives thumbor's pixels); seed 0 or none is seed 1, where thumbor goes on with its process's sequence: `ImageProcessors.ColorTransform.noise`") { call, options throws(ServiceError) in
            let amount = try call.integer(0, in: 0...Self.wholeNumbers.upperBound)
            let seed = call.given(1) == nil ? 0 : try call.integer(1, in: 0...Int(Int32.max))
            options.thumborFilters.steps.append(ImageProcessors.ColorTransform.noise(amount: amount, seed: UInt32(seed)))
        },
        ThumborFilter("convolution", arguments: 2...3, "`convolution(w;w;…,columns[,normalize])`: the weights as a matrix of `columns` (both sides odd, at most 15), edges repeated, divided by their sum unless `false`: `ImageProcessors.Convolution`") { call, options throws(ServiceError) in
            let weights = (call.given(0) ?? "").split(separator: ";", omittingEmptySubsequences: false).map { Double($0) }
            let columns = try call.integer(1, in: 1...ImageProcessors.Convolution.maximumSide)
            let normalizes = call.given(2) == nil ? true : try call.boolean(2)
            guard !weights.contains(nil), let step = ImageProcessors.Convolution(weights: weights.compactMap { $0 }, columns: columns, normalizes: normalizes) else {
                throw call.bad("'\(call.given(0) ?? "")' in \(columns) columns is not a matrix of numbers with odd sides of at most \(ImageProcessors.Convolution.maximumSide)")
            }
            options.thumborFilters.steps.append(step)
        },
        ThumborFilter("curve", arguments: 4...4, "`curve([(x,y),…],r,g,b)`: each channel through its cubic spline, then through the first one, as thumbor interpolates them (x increasing, values 0–255): `ImageProcessors.ChannelTables.curve`") { call, options throws(ServiceError) in
            let curves = try (0..<4).map { index throws(ServiceError) in try curvePoints(call, index) }
            guard let step = ImageProcessors.ChannelTables.curve(all: curves[0], red: curves[1], green: curves[2], blue: curves[3]) else {
                throw call.bad("a curve needs points with x increasing and values in 0...255")
            }
            options.thumborFilters.steps.append(step)
        },
        ThumborFilter("round_corner", arguments: 4...5, "`round_corner(a[|b],r,g,b[,transparent])`: the corners outside elliptic arcs of radii a and b painted in the colour (and transparent with `1`/`true`), whole pixels where thumbor blends the arc's edge: `ImageProcessors.RoundCorner`") { call, options throws(ServiceError) in
            let radii = (call.given(0) ?? "").split(separator: "|", omittingEmptySubsequences: false).map { Int($0) }
            guard (1...2).contains(radii.count), let a = radii[0], let b = radii.last ?? nil,
                  (0...OptionArguments.largestArgument).contains(a), (0...OptionArguments.largestArgument).contains(b) else {
                throw call.bad("'\(call.given(0) ?? "")' is not a radius a or a|b")
            }
            let channels = try (1...3).map { index throws(ServiceError) in UInt8(try call.integer(index, in: 0...255)) }
            let transparent = call.given(4) == nil ? false : try call.boolean(4)
            options.thumborFilters.steps.append(ImageProcessors.RoundCorner(radiusX: a, radiusY: b, color: RGBColor(red: channels[0], green: channels[1], blue: channels[2]),
                                                            transparent: transparent))
        },
        ThumborFilter("watermark", arguments: 4...6, "`watermark(url,x,y,alpha[,w_ratio[,h_ratio]])`: the image at `url` (allowed sources only, loaded as `--watermark-url` is) `alpha` % more transparent, fitted into `w_ratio`/`h_ratio` % of the image's sides when given, at x and y: pixels, `-n` from the far edge, `np` percent, `center` or `repeat`: `ImageProcessors.PositionedWatermark`") { call, options throws(ServiceError) in
            options.thumborWatermarks.append(try ThumborWatermark(call))
        },
        ThumborFilter("frame", arguments: 1...1, "`frame(url)`: the image padded on white as the nine-patch at `url` says (allowed sources only, loaded as `watermark`'s image is), then framed by it, its stretchy rows and columns scaled to the image, after the marks: `ImageProcessors.NinePatchFrame`") { call, options throws(ServiceError) in
            guard let url = call.given(0) else { throw call.bad("names no image") }
            options.thumborFrames.append(ThumborURL.withScheme(url))
        },
        ThumborFilter("extract_focal", arguments: 0...0, "when the image is a thumbor URL with a manual crop (looked for through up to 10 nested URLs, their host dropped), the image under it is loaded instead and the crop's box is a focal point, as `focal()`'s: `ThumborURL.extractedFocus`") { _, _ in },
        .ignored("autojpg", arguments: 0...1, "the format follows the source's rule and `Accept`"),
        .ignored("cover", arguments: 0...0, "an animation's first frame: `--max-animation-frames` decides"),
        ThumborFilter("red_eye", arguments: 0...0, "in the faces `smart` finds, the eyes OpenCV's eye cascade finds, and in each the largest region with red over twice the mean of green and blue painted that mean, as thumbor's filter does it with OpenCV (nothing without `smart`, faces or OpenCV); right after the crop and resize, the faces' boxes moved with them: `ImageProcessors.RedEye`") { _, options in
            options.thumbor?.redEye = true
        },
        ThumborFilter("colorize", arguments: 4...4, "`colorize(r,g,b,rrggbb)`: each channel blended towards the colour's by its own %: `ImageProcessors.ChannelTables.colorize`") { call, options throws(ServiceError) in
            let percents = try (0..<3).map { index throws(ServiceError) in try call.integer(index, in: 0...Self.wholeNumbers.upperBound) }
            guard let text = call.given(3), text.count == 6, let color = RGBColor(hex: text) else { throw call.bad("'\(call.given(3) ?? "")' is not a colour rrggbb") }
            options.thumborFilters.steps.append(ImageProcessors.ChannelTables.colorize(redPercent: percents[0], greenPercent: percents[1], bluePercent: percents[2], color: color))
        },
    ]

    /// thumbor's `fill(blur)` blurs with radius and sigma 50.
    static let fillBlurRadius = 50

    /// The whole numbers a filter's number argument may be: thumbor's take any; these are far
    /// past where each filter's effect saturates, and far from overflowing.
    static let wholeNumbers = -1_000_000...1_000_000

    /// A curve's points, `[(x,y),(x,y),…]`, at most 256 of them.
    static func curvePoints(_ call: ThumborFilterCall, _ index: Int) throws(ServiceError) -> ImageProcessors.ChannelTables.CurvePoints {
        let text = call.given(index) ?? ""
        guard text.hasPrefix("["), text.hasSuffix("]"), text.count <= 4096 else { throw call.bad("'\(text)' is not a curve [(x,y),…]") }
        let numbers = text.dropFirst().dropLast().split(whereSeparator: { "(),".contains($0) }).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard numbers.count % 2 == 0, numbers.count <= 512, !numbers.contains(nil),
              text.dropFirst().dropLast().allSatisfy({ $0.isNumber || "(), ".contains($0) }) else {
            throw call.bad("'\(text)' is not a curve [(x,y),…]")
        }
        let values = numbers.compactMap { $0 }
        return stride(from: 0, to: values.count, by: 2).map { (x: values[$0], y: values[$0 + 1]) }
    }

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

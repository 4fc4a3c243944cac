import Foundation
import LoupeCodecs
import LoupeProcessing

/// imgproxy's filters (`sharpen`, `pixelate`), output options (`format_quality`, `max_bytes`,
/// `keep_copyright`, `strip_color_profile`) and handling options (`raw`, `skip_processing`,
/// `filename`, `return_attachment`), parsed with imgproxy's argument rules; a bad argument is a
/// 400 naming the option and the argument.
extension ImgproxyURL {
    /// The canonical names this file parses (``applyOutputOption(_:name:args:to:)``).
    static let outputOptionNames: Set<String> = [
        "sharpen", "pixelate", "format_quality", "max_bytes", "keep_copyright", "strip_color_profile",
        "raw", "skip_processing", "filename", "return_attachment", "preset", "max_animation_frames",
    ]

    /// The largest `max_bytes` taken: far above any result a quality can shrink, and small
    /// enough that no arithmetic on it overflows.
    static let maximumMaxBytes = 1 << 40

    /// Applies one of ``outputOptionNames`` (`canonical`), spelled `name` in the URL.
    static func applyOutputOption(_ canonical: String, name: String, args: [String], to options: inout ProcessingOptions) throws(ServiceError) {
        func single() throws(ServiceError) -> String {
            guard args.count == 1 else { throw .badOption("option '\(name)' takes 1 argument, got \(args.count)") }
            return args[0]
        }
        switch canonical {
        case "sharpen":
            let text = try single()
            guard let sigma = Double(text), sigma.isFinite, sigma >= 0, sigma <= Sharpen.maximumSigma else {
                throw .badOption("sharpen '\(text)' in '\(name)' is not a number in 0...\(Int(Sharpen.maximumSigma))")
            }
            options.sharpen = sigma
        case "pixelate":
            let text = try single()
            guard let size = Int(text), size >= 0 else {
                throw .badOption("pixelate '\(text)' in '\(name)' is not a whole number of pixels, 0 or more")
            }
            options.pixelate = size
        case "format_quality":
            guard !args.isEmpty, args.count % 2 == 0 else {
                throw .badOption("option '\(name)' takes format:quality pairs, got \(args.count) arguments")
            }
            for pair in stride(from: 0, to: args.count, by: 2) {
                let formatName = args[pair], qualityText = args[pair + 1]
                guard let format = qualityFormat(named: formatName) else {
                    throw .badOption("'\(formatName)' in '\(name)' is not an image format (jpeg, jpg, png, webp, avif, gif, heic, jxl, ...)")
                }
                guard let quality = Int(qualityText), (0...100).contains(quality) else {
                    throw .badOption("quality '\(qualityText)' for \(formatName) in '\(name)' is not in 0...100")
                }
                // 0 is imgproxy's "not set"; formats Loupe never writes lossily have nothing to set.
                guard let format else { continue }
                options.formatQuality[format] = quality == 0 ? nil : quality
            }
        case "max_animation_frames":
            // imgproxy takes it only with IMGPROXY_ALLOW_SECURITY_OPTIONS; here a URL may lower
            // the server's --max-animation-frames, never raise it (ImageService.check).
            let text = try single()
            guard let frames = Int(text), frames >= 1 else {
                throw .badOption("max_animation_frames '\(text)' in '\(name)' is not a whole number of frames, 1 or more")
            }
            options.maxAnimationFrames = frames
        case "max_bytes":
            let text = try single()
            guard let bytes = Int(text), bytes >= 0, bytes <= maximumMaxBytes else {
                throw .badOption("max_bytes '\(text)' in '\(name)' is not a whole number of bytes, 0 or more")
            }
            options.maxBytes = bytes
        case "keep_copyright":
            // Results carry no metadata at all (the encoders write none), so the copyright a
            // source may carry cannot be kept; only dropping it is honest.
            guard try !boolean(single(), name: name) else {
                throw .badOption("keep_copyright:true is not supported: results never carry the source's metadata, copyright included")
            }
        case "strip_color_profile":
            // Every result is converted to sRGB and written without a profile: exactly what
            // stripping means; keeping a source's (wide-gamut) profile is not possible here.
            guard try boolean(single(), name: name) else {
                throw .badOption("strip_color_profile:false is not supported: results are always converted to sRGB and carry no profile")
            }
        case "raw":
            options.raw = try boolean(single(), name: name)
        case "skip_processing":
            guard !args.isEmpty else { throw .badOption("option '\(name)' takes at least one format") }
            for formatName in args {
                guard let format = qualityFormat(named: formatName) else {
                    throw .badOption("'\(formatName)' in '\(name)' is not an image format (jpeg, jpg, png, webp, avif, gif, heic, jxl, ...)")
                }
                if let format = format ?? sourceOnlyFormat(named: formatName) { options.skipProcessing.insert(format) }
            }
        case "filename":
            guard (1...2).contains(args.count) else { throw .badOption("option '\(name)' takes 1 or 2 arguments, got \(args.count)") }
            var filename = args[0]
            if args.count == 2, !args[1].isEmpty, try boolean(args[1], name: name) {
                let trimmed = String(filename.reversed().drop { $0 == "=" }.reversed())
                guard let data = base64URLDecode(trimmed), let text = String(data: data, encoding: .utf8) else {
                    throw .badOption("filename '\(filename)' in '\(name)' is not URL-safe base64 of UTF-8 text")
                }
                filename = text
            }
            // The plain form is taken as the path spells it, percent signs included, as
            // imgproxy takes it (it reads options from the raw request target).
            options.filename = filename.isEmpty ? nil : filename
        case "return_attachment":
            options.returnAttachment = try boolean(single(), name: name)
        case "preset":
            // Presets are expanded from the server's table before options are parsed
            // (``ImgproxyURL/init(path:presets:)``), so one reaching here names no preset.
            throw .badOption("unknown preset '\(args.first ?? "")'")
        default:
            throw .unsupportedOption(name)
        }
    }

    /// A boolean as imgproxy's options take them (Go's `strconv.ParseBool`); anything else is
    /// a 400 rather than imgproxy's silent `false`.
    static func boolean(_ text: String, name: String) throws(ServiceError) -> Bool {
        guard let value = BooleanSpelling.value(of: text) else {
            throw .badOption("'\(text)' in '\(name)' is not a boolean (\(BooleanSpelling.accepted))")
        }
        return value
    }

    /// imgproxy's image type names: `.some(format)` for the formats Loupe writes with a
    /// quality or reads, `.some(nil)` for names imgproxy knows that no result of Loupe's can
    /// have, `nil` for unknown names.
    static func qualityFormat(named name: String) -> ImageFormat?? {
        switch name {
        case "jpeg", "jpg": return .some(.jpeg)
        case "webp": return .some(.webp)
        case "avif": return .some(.avif)
        case "png", "gif", "heic", "jxl", "ico", "svg", "bmp", "tiff": return .some(nil)
        default: return nil
        }
    }

    /// The source formats `skip_processing` can name beyond the lossy ones.
    private static func sourceOnlyFormat(named name: String) -> ImageFormat? {
        switch name {
        case "png": .png
        case "gif": .gif
        case "heic": .heif
        case "jxl": .jxl
        default: nil
        }
    }
}

import Foundation
import LoupeCodecs
import LoupeProcessing

/// One imgproxy URL path, split and parsed: `/%signature/%options/plain/%source@%extension` or
/// `/%signature/%options/%base64url_source.%extension` (the base64 may be split by `/`).
///
/// Pure: no server, no clock but the one passed in. An option Loupe does not support is an
/// error naming it, never ignored.
public struct ImgproxyURL: Sendable, Equatable {
    /// The first segment: a signature, or `insecure` / `_`.
    public var signature: String
    /// The path after the signature, with its leading `/`: what the signature signs.
    public var signedPath: String
    /// The parsed options.
    public var options: ProcessingOptions
    /// The source URL, decoded.
    public var source: String

    /// Parses `path` (the request target's path, still percent-encoded, no query).
    public init(path: String) throws(ServiceError) {
        guard path.hasPrefix("/") else { throw .badURL("the path must start with /") }
        let afterSlash = path.dropFirst()
        guard let slash = afterSlash.firstIndex(of: "/") else { throw .badURL("the path has no options or source after the signature") }
        signature = String(afterSlash[..<slash])
        signedPath = String(afterSlash[slash...])
        guard !signature.isEmpty else { throw .badURL("the signature segment is empty") }

        var segments = signedPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var options = ProcessingOptions()
        var seen = Set<String>()
        // Options come first: every segment with a colon up to `plain` or the base64 source.
        var index = 0
        while index < segments.count, segments[index] != "plain", segments[index].contains(":") {
            try Self.apply(option: segments[index], to: &options, seen: &seen)
            index += 1
        }
        segments.removeFirst(index)
        guard !segments.isEmpty, !(segments.count == 1 && segments[0].isEmpty) else { throw .badURL("the URL names no source") }
        var extensionName: String?
        if segments[0] == "plain" {
            let rest = segments.dropFirst().joined(separator: "/")
            var encoded = rest
            if let at = rest.lastIndex(of: "@") {
                encoded = String(rest[..<at])
                extensionName = String(rest[rest.index(after: at)...])
            }
            guard let decoded = encoded.removingPercentEncoding, !decoded.isEmpty else {
                throw .badURL("the plain source is not valid percent-encoding")
            }
            source = decoded
        } else {
            var encoded = segments.joined()
            if let dot = encoded.lastIndex(of: ".") {
                extensionName = String(encoded[encoded.index(after: dot)...])
                encoded = String(encoded[..<dot])
            }
            guard let decoded = Self.base64URLDecode(encoded), let text = String(data: decoded, encoding: .utf8), !text.isEmpty else {
                throw .badURL("the source is neither plain/ nor valid URL-safe base64")
            }
            source = text
        }
        if let extensionName {
            guard !extensionName.isEmpty else { throw .badURL("empty extension") }
            let format = try Self.format(named: extensionName)
            if options.format == nil { options.format = format }
        }
        self.options = options
    }

    /// Options alone, as a URL's options segments (`rs:fill:300:300/g:ce`; empty: the
    /// defaults), for callers that name the source apart (a `POST /batch` item).
    public static func options(_ text: String) throws(ServiceError) -> ProcessingOptions {
        var options = ProcessingOptions()
        var seen = Set<String>()
        for segment in text.split(separator: "/") {
            guard segment.contains(":") else { throw .badOption("'\(segment)' is not an option (name:arguments)") }
            try apply(option: String(segment), to: &options, seen: &seen)
        }
        return options
    }

    /// The options' names and aliases, by their canonical name.
    static let aliases: [String: String] = [
        "resize": "resize", "rs": "resize", "size": "size", "s": "size",
        "resizing_type": "resizing_type", "rt": "resizing_type",
        "width": "width", "w": "width", "height": "height", "h": "height",
        "enlarge": "enlarge", "el": "enlarge", "dpr": "dpr", "gravity": "gravity", "g": "gravity",
        "quality": "quality", "q": "quality", "format": "format", "f": "format", "ext": "format",
        "background": "background", "bg": "background", "blur": "blur", "bl": "blur",
        "strip_metadata": "strip_metadata", "sm": "strip_metadata",
        "cachebuster": "cachebuster", "cb": "cachebuster", "expires": "expires", "exp": "expires",
        "sharpen": "sharpen", "sh": "sharpen", "pixelate": "pixelate", "pix": "pixelate",
        "format_quality": "format_quality", "fq": "format_quality", "max_bytes": "max_bytes", "mb": "max_bytes",
        "keep_copyright": "keep_copyright", "kcr": "keep_copyright",
        "strip_color_profile": "strip_color_profile", "scp": "strip_color_profile", "raw": "raw",
        "skip_processing": "skip_processing", "skp": "skip_processing", "filename": "filename", "fn": "filename",
        "return_attachment": "return_attachment", "att": "return_attachment", "preset": "preset", "pr": "preset",
        "min-width": "min-width", "mw": "min-width", "min-height": "min-height", "mh": "min-height",
        "zoom": "zoom", "z": "zoom", "extend": "extend", "ex": "extend",
        "extend_aspect_ratio": "extend_aspect_ratio", "extend_ar": "extend_aspect_ratio", "exar": "extend_aspect_ratio",
        "crop": "crop", "c": "crop", "trim": "trim", "t": "trim", "padding": "padding", "pd": "padding",
        "rotate": "rotate", "rot": "rotate", "flip": "flip", "fl": "flip", "auto_rotate": "auto_rotate", "ar": "auto_rotate",
        "max_result_dimension": "max_result_dimension", "mrd": "max_result_dimension",
        "watermark": "watermark", "wm": "watermark",
        "max_animation_frames": "max_animation_frames", "maf": "max_animation_frames",
    ]

    /// Applies one `name:arg:arg` segment.
    static func apply(option segment: String, to options: inout ProcessingOptions, seen: inout Set<String>) throws(ServiceError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let name = parts[0]
        let args = Array(parts.dropFirst())
        guard let canonical = aliases[name] else { throw .unsupportedOption(name) }
        func argument(_ i: Int) -> String? { i < args.count && !args[i].isEmpty ? args[i] : nil }
        func count(_ range: ClosedRange<Int>) throws(ServiceError) {
            guard range.contains(args.count) else {
                throw .badOption("option '\(name)' takes \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)") arguments, got \(args.count)")
            }
        }
        switch canonical {
        case "resize":
            try count(1...8)
            if let type = argument(0) { options.resizingType = try resizingType(type) }
            try size(args.dropFirst(), name: name, into: &options)
        case "size":
            try count(1...7)
            try size(args[...], name: name, into: &options)
        case "resizing_type":
            try count(1...1)
            if let type = argument(0) { options.resizingType = try resizingType(type) }
        case "width":
            try count(1...1)
            if let width = argument(0) { options.width = try dimension(width, name: name) }
        case "height":
            try count(1...1)
            if let height = argument(0) { options.height = try dimension(height, name: name) }
        case "enlarge":
            try count(1...1)
            options.enlarge = try flag(args[0], name: name)
        case "dpr", "gravity", "min-width", "min-height", "zoom", "extend", "extend_aspect_ratio", "crop", "trim", "padding",
             "rotate", "flip", "auto_rotate", "max_result_dimension":
            try applyGeometry(canonical, args, name: name, to: &options)
        case "quality":
            try count(1...1)
            guard let quality = Int(args[0]), (0...100).contains(quality) else { throw .badOption("quality '\(args[0])' is not in 0...100") }
            options.quality = quality == 0 ? nil : quality
        case "format":
            try count(1...1)
            options.format = try format(named: args[0])
        case "background":
            try count(1...3)
            // An empty colour removes an earlier one, as in imgproxy.
            options.background = args.count == 1 && args[0].isEmpty ? nil : try color(args)
        case "blur":
            try count(1...1)
            guard let sigma = Double(args[0]), sigma >= 0, sigma <= GaussianBlur.maximumSigma else {
                throw .badOption("blur '\(args[0])' is not a number in 0...\(Int(GaussianBlur.maximumSigma))")
            }
            options.blur = sigma
        case "strip_metadata":
            try count(1...1)
            // Results never carry the source's metadata (the encoders write none), so only
            // `true` can be honoured.
            guard try boolean(args[0], name: name) else {
                throw .badOption("strip_metadata:false is not supported: results never carry the source's metadata")
            }
        case "cachebuster":
            try count(1...1)
            options.cacheBuster = args[0]
        case "expires":
            try count(1...1)
            guard let time = Int(args[0]) else { throw .badOption("expires '\(args[0])' is not a Unix time") }
            options.expires = time
        case "watermark":
            try applyWatermark(args: args, name: name, to: &options)
        case _ where outputOptionNames.contains(canonical):
            try applyOutputOption(canonical, name: name, args: args, to: &options)
        default:
            throw .unsupportedOption(name)
        }
        seen.insert(canonical)
    }

    private static func size(_ args: ArraySlice<String>, name: String, into options: inout ProcessingOptions) throws(ServiceError) {
        let list = Array(args)
        if list.count > 0, !list[0].isEmpty { options.width = try dimension(list[0], name: name) }
        if list.count > 1, !list[1].isEmpty { options.height = try dimension(list[1], name: name) }
        if list.count > 2, !list[2].isEmpty { options.enlarge = try flag(list[2], name: name) }
        if list.count > 3, !list[3].isEmpty { try applyGeometry("extend", Array(list[3...]), name: name, to: &options) }
    }

    private static func resizingType(_ text: String) throws(ServiceError) -> BoxResize.Mode {
        guard let mode = BoxResize.Mode(rawValue: text) else {
            throw .badOption("resizing type '\(text)' is not one of fit, fill, fill-down, force, auto")
        }
        return mode
    }

    static func dimension(_ text: String, name: String) throws(ServiceError) -> Int {
        guard let value = Int(text), value >= 0, value <= 1 << 20 else {
            throw .badOption("'\(text)' in '\(name)' is not a size in pixels")
        }
        return value
    }

    static func format(named text: String) throws(ServiceError) -> ImageFormat {
        switch text.lowercased() {
        case "jpg", "jpeg": return .jpeg
        case "png": return .png
        case "webp": return .webp
        case "avif": return .avif
        case "gif": return .gif
        default: throw .badOption("output format '\(text)' is not supported (jpg, png, webp, avif, gif)")
        }
    }

    private static func color(_ args: [String]) throws(ServiceError) -> RGBColor {
        if args.count == 1 { return try hexColor(args[0], name: "background") }
        guard args.count == 3, let r = UInt8(args[0]), let g = UInt8(args[1]), let b = UInt8(args[2]) else {
            throw .badOption("background takes a hex colour or three numbers 0...255")
        }
        return RGBColor(red: r, green: g, blue: b)
    }

    /// Decodes URL-safe base64 with or without padding.
    static func base64URLDecode(_ text: String) -> Data? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        guard !standard.contains("=") || standard.hasSuffix("=") else { return nil }
        standard = standard.trimmingCharacters(in: CharacterSet(charactersIn: "="))
        let padding = (4 - standard.count % 4) % 4
        if padding == 3 { return nil }
        return Data(base64Encoded: standard + String(repeating: "=", count: padding))
    }
}

import Foundation
import LoupeCodecs

/// imgproxy's handling options (what is served and how it is named), presets and security options.
extension ImgproxyOption {
    static let handling: [ImgproxyOption] = [
        ImgproxyOption(["skip_processing", "skp"], arguments: 1...Int.max, fields: [OptionField(\.skipProcessing, key: "skp")], documentation: .init(
            meaning: "serve the source's bytes when its format is listed and the result would have that format (no format named, or the same)",
            loupe: "yes, same rule",
            differences: "the pixel limit from the header still applies; when the source's format is not listed, it is loaded "
                + "once for the check and once to process it, the second a disk hit with `--cache-dir` "
                + "(`HandlingOptionsTests.skipProcessingPassesListedFormatsThrough`)")
        ) { arguments, options throws(ServiceError) in
            for formatName in arguments.values {
                if let format = try arguments.imageFormat(formatName) ?? sourceOnlyFormat(named: formatName) {
                    options.skipProcessing.insert(format)
                }
            }
        },
        ImgproxyOption(["raw"], arguments: 1...1, fields: [OptionField(\.raw, key: "raw")], documentation: .init(
            meaning: "stream the source's bytes, no processing, no checks",
            loupe: "yes: the source's bytes; processing options and the extension ignored",
            differences: "the source must still be allowed (`--allowed-sources`, the SSRF guard), within `--max-source-size`, "
                + "and an image whose header is within `--max-source-pixels` and the frame limits; `Content-Type` is "
                + "the sniffed format's, not the origin's; the file name's extension is the format's; the URL's "
                + "extension is still parsed, so an unknown one is a 400; an SVG source is answered unsanitised, as imgproxy "
                + "does (`HandlingOptionsTests.rawAnswersTheSourceBytesWithEveryLimitChecked`)")
        ) { arguments, options throws(ServiceError) in
            options.raw = try arguments.boolean(arguments[0])
        },
        ImgproxyOption(["cachebuster", "cb"], arguments: 1...1, fields: [OptionField(\.cacheBuster, key: "cb")], documentation: .init(
            meaning: "part of the URL only; empty is none", loupe: "yes",
            differences: "— (`HandlingOptionsTests.cachebusterChangesTheResultKeyOnly`)")
        ) { arguments, options throws(ServiceError) in
            options.cacheBuster = arguments[0]
        },
        ImgproxyOption(["expires", "exp"], arguments: 1...1, fields: [OptionField(\.expires, key: "exp", .headersOnly)], documentation: .init(
            meaning: "refused after this Unix time (404); 0 or below is none; `Cache-Control` max-age cut to the time left",
            loupe: "yes, all three", differences: "— (`HandlingOptionsTests.expiresRefusesLateURLsAndShortensCacheLifetime`)")
        ) { arguments, options throws(ServiceError) in
            guard let time = Int(arguments[0]) else { throw .badOption("expires '\(arguments[0])' is not a Unix time") }
            options.expires = time
        },
        ImgproxyOption(["filename", "fn"], arguments: 1...2, fields: [OptionField(\.filename, key: "fn", .headersOnly)], documentation: .init(
            meaning: "the `Content-Disposition` file name's stem (URL-safe base64 when the second argument is true); the "
                + "extension is the result's format's; `\"` written as `%22`",
            loupe: "yes",
            differences: "bytes outside printable ASCII, and `\\`, are percent-encoded too (a base64 name can hold a line "
                + "break); at most 255 bytes (`HandlingOptionsTests.filenameAndReturnAttachmentSetContentDisposition`)")
        ) { arguments, options throws(ServiceError) in
            var filename = arguments[0]
            if let encoded = try arguments.given(1, arguments.boolean), encoded {
                let trimmed = String(filename.reversed().drop { $0 == "=" }.reversed())
                guard let data = ImgproxyURL.base64URLDecode(trimmed), let text = String(data: data, encoding: .utf8) else {
                    throw .badOption("filename '\(filename)' in '\(arguments.name)' is not URL-safe base64 of UTF-8 text")
                }
                filename = text
            }
            // The plain form is taken as the path spells it, percent signs included, as
            // imgproxy takes it (it reads options from the raw request target).
            options.filename = filename.isEmpty ? nil : filename
        },
        ImgproxyOption(["return_attachment", "att"], arguments: 1...1, fields: [OptionField(\.returnAttachment, key: "att", .headersOnly)],
                       documentation: .init(meaning: "`Content-Disposition: attachment` rather than `inline`", loupe: "yes",
                                            differences: "— (same test)")
        ) { arguments, options throws(ServiceError) in
            options.returnAttachment = try arguments.boolean(arguments[0])
        },
        preset,
        ImgproxyOption(["max_animation_frames", "maf"], arguments: 1...1, fields: [OptionField(\.maxAnimationFrames, key: "maf")],
                       isSecurity: true, documentation: .init(
            meaning: "the most frames of an animation kept", loupe: "yes, lowering only",
            differences: "a URL may lower `--max-animation-frames`, never raise it (a larger value gets the setting); 0 or "
                + "not a number is a 400; 1 answers the first frame (`AnimationTests.maxAnimationFramesTruncates`)")
        ) { arguments, options throws(ServiceError) in
            // A URL may lower the server's --max-animation-frames, never raise it (ImageService.check).
            guard let frames = Int(arguments[0]), frames >= 1 else {
                throw .badOption("max_animation_frames '\(arguments[0])' in '\(arguments.name)' is not a whole number of frames, 1 or more")
            }
            options.maxAnimationFrames = frames
        },
        ImgproxyOption(["max_src_resolution", "msr"], arguments: 1...1, fields: [OptionField(\.maxSourceResolution, key: "msr")],
                       isSecurity: true, documentation: .init(
            meaning: "the largest source resolution in megapixels (every frame decoded counted)", loupe: "yes, lowering only",
            differences: "lowers `--max-source-pixels` for this URL, never raises it; a source over it is a 422, as in imgproxy")
        ) { arguments, options throws(ServiceError) in
            options.maxSourceResolution = try arguments.positiveNumber(arguments[0])
        },
        ImgproxyOption(["max_src_file_size", "msfs"], arguments: 1...1, fields: [OptionField(\.maxSourceFileSize, key: "msfs")],
                       isSecurity: true, documentation: .init(
            meaning: "the largest source file in bytes; 0: no limit of the URL's own", loupe: "yes, lowering only",
            differences: "lowers `--max-source-size` for this URL, never raises it; checked once the source is loaded, a 422, as in imgproxy")
        ) { arguments, options throws(ServiceError) in
            guard let bytes = Int(arguments[0]), bytes >= 0 else {
                throw .badOption("max_src_file_size '\(arguments[0])' in '\(arguments.name)' is not a whole number of bytes")
            }
            options.maxSourceFileSize = bytes
        },
        ImgproxyOption(["max_animation_frame_resolution", "mafr"], arguments: 1...1,
                       fields: [OptionField(\.maxAnimationFrameResolution, key: "mafr")], isSecurity: true, documentation: .init(
            meaning: "the largest animation frame in megapixels, in place of `max_src_resolution` for animations", loupe: "yes, lowering only",
            differences: "never raises the server's limits; a frame over it is a 422, as in imgproxy")
        ) { arguments, options throws(ServiceError) in
            options.maxAnimationFrameResolution = try arguments.positiveNumber(arguments[0])
        },
    ]

    /// `preset`/`pr`: expanded from the server's ``Presets`` where it appears (``OptionSegment``),
    /// so applying it means it named no preset.
    static let preset = ImgproxyOption(["preset", "pr"], arguments: 1...Int.max, documentation: .init(
        meaning: "named option sets applied where the option appears, several names in order; a preset met again "
            + "within its own expansion is skipped; the `default` preset applies before every URL's options; "
            + "`IMGPROXY_ONLY_PRESETS`: the options part is `:`-separated preset names",
        loupe: "yes: `--presets name=opts/opts,...`, `--presets-file` (a line each, `#` comments), "
            + "`--only-presets`; the result key is made of the expanded options",
        differences: "an unknown preset is a 400 `badOption` naming it (imgproxy: 404); an expansion beyond 1,024 steps "
            + "is refused, and a table that makes one is refused at start-up; in only-presets mode an option "
            + "segment after the names is a 400 (imgproxy fails to read it as the source) (`PresetTests`)")
    ) { arguments, _ throws(ServiceError) in
        throw .badOption("unknown preset '\(arguments[0])'")
    }

    /// The source formats `skip_processing` can name beyond the lossy ones.
    private static func sourceOnlyFormat(named name: String) -> ImageFormat? {
        switch name {
        case "png": .png
        case "gif": .gif
        case "tiff": .tiff
        case "bmp": .bmp
        case "ico": .ico
        case "svg": .svg
        default: nil
        }
    }
}

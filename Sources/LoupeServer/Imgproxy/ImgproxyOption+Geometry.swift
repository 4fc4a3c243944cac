import LoupeProcessing

/// imgproxy's geometry options: the box, the scale, cuts, extension, padding, rotation.
extension ImgproxyOption {
    static let geometry: [ImgproxyOption] = [
        ImgproxyOption(["resize", "rs"], arguments: 1...8, documentation: .init(
            meaning: "type, width, height, enlarge, extend (with gravity) in one", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            if let type = try arguments.given(0, arguments.resizingType) { options.resizingType = type }
            try applySize(arguments.dropping(1), to: &options)
        },
        ImgproxyOption(["size", "s"], arguments: 1...7, documentation: .init(
            meaning: "width, height, enlarge, extend (with gravity)", loupe: "yes", differences: "—"), apply: applySize),
        ImgproxyOption(["resizing_type", "rt"], arguments: 1...1, fields: [OptionField(\.resizingType, key: "rt", .geometry(.withBox))],
                       documentation: .init(meaning: "`fit`, `fill`, `fill-down`, `force`, `auto`", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            if let type = try arguments.given(0, arguments.resizingType) { options.resizingType = type }
        },
        .size(["width", "w"], \.width, key: "w",
              documentation: .init(meaning: "the box's width; 0 follows the aspect ratio", loupe: "yes", differences: "at most 1,048,576")),
        .size(["height", "h"], \.height, key: "h",
              documentation: .init(meaning: "the box's height; 0 follows the aspect ratio", loupe: "yes", differences: "at most 1,048,576")),
        .size(["min-width", "mw"], \.minWidth, key: "mw",
              documentation: .init(meaning: "the result is at least this wide", loupe: "yes", differences: "—")),
        .size(["min-height", "mh"], \.minHeight, key: "mh",
              documentation: .init(meaning: "the result is at least this high", loupe: "yes", differences: "—")),
        ImgproxyOption(["zoom", "z"], arguments: 1...2,
                       fields: [OptionField(\.zoomX, key: "zx", .geometry(.acts)), OptionField(\.zoomY, key: "zy", .geometry(.acts))],
                       documentation: .init(meaning: "multiplies the scale (one value, or x and y)", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            let x = try arguments.positiveNumber(arguments[0])
            options.zoomX = x
            options.zoomY = try arguments.given(1, arguments.positiveNumber) ?? x
        },
        ImgproxyOption(["dpr"], arguments: 1...1, fields: [OptionField(\.dpr, key: "dpr", .geometry(.acts))], documentation: .init(
            meaning: "multiplies the box, offsets and padding; never enlarges unless `enlarge`", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            options.dpr = try arguments.positiveNumber(arguments[0])
        },
        ImgproxyOption(["enlarge", "el"], arguments: 1...1, fields: [OptionField(\.enlarge, key: "el", .geometry(.withBox))], documentation: .init(
            meaning: "allow results larger than the source", loupe: "yes",
            differences: "an argument that is not a boolean is a 400 (imgproxy reads it as false)")
        ) { arguments, options throws(ServiceError) in
            options.enlarge = try arguments.flag(arguments[0])
        },
        ImgproxyOption(["extend", "ex"], arguments: 1...4,
                       fields: [OptionField(\.extend, key: "ex", .geometry(.withBox)),
                                OptionField(\.extendGravity, key: "exg", .geometry(.refines))], documentation: .init(
            meaning: "extend the result to the box, at a gravity (no `sm`) with offsets or `fp`", loupe: "yes",
            differences: "the new area is transparent, or the background colour, or white for JPEG"),
            apply: applyExtend),
        ImgproxyOption(["extend_aspect_ratio", "extend_ar", "exar"], arguments: 1...4,
                       fields: [OptionField(\.extendAspectRatio, key: "exar", .geometry(.withBox)),
                                OptionField(\.extendAspectRatioGravity, key: "exarg", .geometry(.refines))],
                       documentation: .init(meaning: "extend to the box's aspect ratio", loupe: "yes", differences: "as `extend`")
        ) { arguments, options throws(ServiceError) in
            options.extendAspectRatio = try arguments.flag(arguments[0])
            if arguments.count > 1 {
                options.extendAspectRatioGravity = try arguments.gravity(from: 1, current: options.extendAspectRatioGravity, allowsSmart: false)
            }
        },
        ImgproxyOption(["gravity", "g"], arguments: 1...3, fields: [OptionField(\.gravity, key: "g", .geometry(.refines))], documentation: .init(
            meaning: "where `fill` cuts: `ce`, compass points with offsets, `sm`, `fp:x:y`", loupe: "yes",
            differences: "`sm` uses Loupe's edge-energy detector, not libvips' attention model: same size, possibly another window")
        ) { arguments, options throws(ServiceError) in
            options.gravity = try arguments.gravity(from: 0, current: options.gravity, allowsSmart: true)
        },
        ImgproxyOption(["crop", "c"], arguments: 1...5,
                       fields: [OptionField(\.cropWidth, key: "cw", .geometry(.acts)), OptionField(\.cropHeight, key: "ch", .geometry(.acts)),
                                OptionField(\.cropGravity, key: "cg", .geometry(.refines))],
                       documentation: .init(meaning: "cut before resizing: pixels, or shares below 1; own gravity", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            options.cropWidth = try arguments.given(0, arguments.cropSize) ?? 0
            options.cropHeight = try arguments.given(1, arguments.cropSize) ?? 0
            if arguments.count > 2 {
                options.cropGravity = try arguments.gravity(from: 2, current: options.cropGravity ?? .center, allowsSmart: true)
            }
        },
        ImgproxyOption(["trim", "t"], arguments: 1...4,
                       fields: [OptionField(\.trimThreshold, key: "t", .geometry(.acts)), OptionField(\.trimColor, key: "tc", .geometry(.refines)),
                                OptionField(\.trimEqualHorizontal, key: "teh", .geometry(.refines)),
                                OptionField(\.trimEqualVertical, key: "tev", .geometry(.refines))], documentation: .init(
            meaning: "cut a border of one colour: threshold, colour, equal sides", loupe: "yes",
            differences: "no 3×3 median smoothing before the threshold (libvips smooths); noisy borders may trim less")
        ) { arguments, options throws(ServiceError) in
            // An empty threshold turns trimming off, as in imgproxy.
            guard let threshold = arguments.given(0) else {
                options.trimThreshold = nil
                return
            }
            guard let value = Double(threshold), value.isFinite, value.magnitude <= 1_000 else {
                throw .badOption("trim threshold '\(threshold)' is not a number")
            }
            options.trimThreshold = value
            options.trimColor = try arguments.given(1, arguments.hexColor)
            if let equal = try arguments.given(2, arguments.flag) { options.trimEqualHorizontal = equal }
            if let equal = try arguments.given(3, arguments.flag) { options.trimEqualVertical = equal }
        },
        ImgproxyOption(["padding", "pd"], arguments: 1...4,
                       fields: [OptionField(\.paddingTop, key: "pdt", .geometry(.acts)), OptionField(\.paddingRight, key: "pdr", .geometry(.acts)),
                                OptionField(\.paddingBottom, key: "pdb", .geometry(.acts)), OptionField(\.paddingLeft, key: "pdl", .geometry(.acts))],
                       documentation: .init(meaning: "CSS-like padding, scaled by the dpr", loupe: "yes", differences: "filled like `extend`")
        ) { arguments, options throws(ServiceError) in
            let top = try arguments.given(0, arguments.dimension) ?? 0
            let right = try arguments.given(1, arguments.dimension) ?? top
            let bottom = try arguments.given(2, arguments.dimension) ?? top
            let left = try arguments.given(3, arguments.dimension) ?? right
            (options.paddingTop, options.paddingRight, options.paddingBottom, options.paddingLeft) = (top, right, bottom, left)
        },
        ImgproxyOption(["auto_rotate", "ar"], arguments: 1...1, fields: [OptionField(\.autoRotate, key: "ar")], documentation: .init(
            meaning: "turn upright by the EXIF orientation; `0` keeps the pixels as stored", loupe: "yes",
            differences: "without the option, `--auto-rotate` (`IMGPROXY_AUTO_ROTATE`) decides")
        ) { arguments, options throws(ServiceError) in
            options.autoRotate = try arguments.flag(arguments[0])
        },
        ImgproxyOption(["rotate", "rot"], arguments: 1...1, fields: [OptionField(\.rotate, key: "rot", .geometry(.acts))], documentation: .init(
            meaning: "clockwise, a multiple of 90", loupe: "yes",
            differences: "a negative angle turns anticlockwise (imgproxy hands libvips an invalid angle for it)")
        ) { arguments, options throws(ServiceError) in
            guard let degrees = Int(arguments[0]), degrees.magnitude <= 1 << 30 else {
                throw .badOption("rotate '\(arguments[0])' is not an integer")
            }
            guard degrees % 90 == 0 else { throw .badOption("rotate '\(arguments[0])' is not a multiple of 90") }
            options.rotate = (degrees % 360 + 360) % 360
        },
        ImgproxyOption(["flip", "fl"], arguments: 1...2,
                       fields: [OptionField(\.flipHorizontal, key: "flh", .geometry(.acts)),
                                OptionField(\.flipVertical, key: "flv", .geometry(.acts))],
                       documentation: .init(meaning: "mirror horizontally, vertically", loupe: "yes", differences: "—")
        ) { arguments, options throws(ServiceError) in
            if let flip = try arguments.given(0, arguments.flag) { options.flipHorizontal = flip }
            if let flip = try arguments.given(1, arguments.flag) { options.flipVertical = flip }
        },
        ImgproxyOption(["max_result_dimension", "mrd"], arguments: 1...1,
                       fields: [OptionField(\.maxResultDimension, key: "mrd", .geometry(.acts))], isSecurity: true, documentation: .init(
            meaning: "scale the whole result down to fit this side", loupe: "yes",
            differences: "the server's `--max-result-dimension` still refuses (400, or 422 once the source size is known) results that the options "
                + "make larger than it and than the source")
        ) { arguments, options throws(ServiceError) in
            guard let limit = Int(arguments[0]), limit.magnitude <= 1 << 30 else {
                throw .badOption("max_result_dimension '\(arguments[0])' is not an integer")
            }
            options.maxResultDimension = limit > 0 ? limit : nil
        },
    ]

    /// An option whose one argument is a size in pixels for one geometry field that acts on its
    /// own; an empty argument keeps the field as it is.
    static func size(_ names: [String], _ keyPath: WritableKeyPath<ProcessingOptions, Int> & Sendable, key: String,
                     documentation: Documentation) -> ImgproxyOption {
        ImgproxyOption(names, arguments: 1...1, fields: [OptionField(keyPath, key: key, .geometry(.acts))],
                       documentation: documentation) { arguments, options throws(ServiceError) in
            if let size = try arguments.given(0, arguments.dimension) { options[keyPath: keyPath] = size }
        }
    }

    /// `size`'s arguments (`resize`'s after the type): width, height, enlarge, then `extend`'s.
    static func applySize(_ arguments: OptionArguments, to options: inout ProcessingOptions) throws(ServiceError) {
        if let width = try arguments.given(0, arguments.dimension) { options.width = width }
        if let height = try arguments.given(1, arguments.dimension) { options.height = height }
        if let enlarge = try arguments.given(2, arguments.flag) { options.enlarge = enlarge }
        if arguments.given(3) != nil { try applyExtend(arguments.dropping(3), to: &options) }
    }

    /// `extend`'s arguments: the switch, then a gravity keeping the earlier one's offsets.
    static func applyExtend(_ arguments: OptionArguments, to options: inout ProcessingOptions) throws(ServiceError) {
        options.extend = try arguments.flag(arguments[0])
        if arguments.count > 1 {
            options.extendGravity = try arguments.gravity(from: 1, current: options.extendGravity, allowsSmart: false)
        }
    }
}

import LoupeProcessing

/// The geometry options' arguments, by imgproxy's rules: an empty argument keeps the default
/// (`g:no::5` is north with a y offset of 5), anything else that is not a valid value is a
/// `badOption` naming the option and the argument.
extension ImgproxyURL {
    /// Largest pixel count, offset or crop an argument may give: far beyond any real image,
    /// small enough that no arithmetic on it overflows.
    static let largestArgument = 1 << 20

    static func applyGeometry(_ canonical: String, _ args: [String], name: String, to options: inout ProcessingOptions) throws(ServiceError) {
        func count(_ range: ClosedRange<Int>) throws(ServiceError) {
            guard range.contains(args.count) else {
                throw .badOption("option '\(name)' takes \(range.lowerBound) to \(range.upperBound) arguments, got \(args.count)")
            }
        }
        func given(_ i: Int) -> String? { i < args.count && !args[i].isEmpty ? args[i] : nil }
        switch canonical {
        case "min-width":
            try count(1...1)
            if let text = given(0) { options.minWidth = try dimension(text, name: name) }
        case "min-height":
            try count(1...1)
            if let text = given(0) { options.minHeight = try dimension(text, name: name) }
        case "zoom":
            try count(1...2)
            let x = try positiveNumber(args[0], name: name)
            options.zoomX = x
            options.zoomY = try given(1).map { text throws(ServiceError) in try positiveNumber(text, name: name) } ?? x
        case "dpr":
            try count(1...1)
            options.dpr = try positiveNumber(args[0], name: name)
        case "extend":
            try count(1...4)
            options.extend = try flag(args[0], name: name)
            if args.count > 1 {
                options.extendGravity = try gravity(Array(args[1...]), name: name, current: options.extendGravity, allowsSmart: false)
            }
        case "extend_aspect_ratio":
            try count(1...4)
            options.extendAspectRatio = try flag(args[0], name: name)
            if args.count > 1 {
                options.extendAspectRatioGravity = try gravity(Array(args[1...]), name: name, current: options.extendAspectRatioGravity,
                                                               allowsSmart: false)
            }
        case "gravity":
            try count(1...3)
            options.gravity = try gravity(args, name: name, current: options.gravity, allowsSmart: true)
        case "crop":
            try count(1...5)
            options.cropWidth = try given(0).map { text throws(ServiceError) in try cropSize(text, name: name) } ?? 0
            options.cropHeight = try given(1).map { text throws(ServiceError) in try cropSize(text, name: name) } ?? 0
            if args.count > 2 {
                options.cropGravity = try gravity(Array(args[2...]), name: name, current: options.cropGravity ?? .center, allowsSmart: true)
            }
        case "trim":
            try count(1...4)
            guard let threshold = given(0) else {
                // An empty threshold turns trimming off, as in imgproxy.
                options.trimThreshold = nil
                return
            }
            guard let value = Double(threshold), value.isFinite, value.magnitude <= 1_000 else {
                throw .badOption("trim threshold '\(threshold)' is not a number")
            }
            options.trimThreshold = value
            options.trimColor = try given(1).map { text throws(ServiceError) in try hexColor(text, name: name) }
            if let text = given(2) { options.trimEqualHorizontal = try flag(text, name: name) }
            if let text = given(3) { options.trimEqualVertical = try flag(text, name: name) }
        case "padding":
            try count(1...4)
            let top = try given(0).map { text throws(ServiceError) in try dimension(text, name: name) } ?? 0
            let right = try given(1).map { text throws(ServiceError) in try dimension(text, name: name) } ?? top
            let bottom = try given(2).map { text throws(ServiceError) in try dimension(text, name: name) } ?? top
            let left = try given(3).map { text throws(ServiceError) in try dimension(text, name: name) } ?? right
            (options.paddingTop, options.paddingRight, options.paddingBottom, options.paddingLeft) = (top, right, bottom, left)
        case "rotate":
            try count(1...1)
            guard let degrees = Int(args[0]), degrees.magnitude <= 1 << 30 else { throw .badOption("rotate '\(args[0])' is not an integer") }
            guard degrees % 90 == 0 else { throw .badOption("rotate '\(args[0])' is not a multiple of 90") }
            options.rotate = (degrees % 360 + 360) % 360
        case "flip":
            try count(1...2)
            if let text = given(0) { options.flipHorizontal = try flag(text, name: name) }
            if let text = given(1) { options.flipVertical = try flag(text, name: name) }
        case "auto_rotate":
            try count(1...1)
            // The pipeline always turns images upright by their EXIF orientation.
            guard try flag(args[0], name: name) else {
                throw .badOption("auto_rotate:false is not supported: images are always turned upright by their EXIF orientation")
            }
        case "max_result_dimension":
            try count(1...1)
            guard let limit = Int(args[0]), limit.magnitude <= 1 << 30 else {
                throw .badOption("max_result_dimension '\(args[0])' is not an integer")
            }
            options.maxResultDimension = limit > 0 ? limit : nil
        default:
            throw .unsupportedOption(name)
        }
    }

    /// A boolean as Go's `strconv.ParseBool` reads it (what imgproxy uses); empty is false.
    static func flag(_ text: String, name: String) throws(ServiceError) -> Bool {
        if text.isEmpty { return false }
        return try boolean(text, name: name)
    }

    static func positiveNumber(_ text: String, name: String) throws(ServiceError) -> Double {
        guard let value = Double(text), value.isFinite, value > 0, value <= Double(largestArgument) else {
            throw .badOption("'\(text)' in '\(name)' is not a positive number")
        }
        return value
    }

    private static func cropSize(_ text: String, name: String) throws(ServiceError) -> Double {
        guard let value = Double(text), value.isFinite, value >= 0, value <= Double(largestArgument) else {
            throw .badOption("crop size '\(text)' in '\(name)' is not a number of pixels or a share below 1")
        }
        return value
    }

    /// `ce`, a compass point, `sm` (where allowed) or `fp:x:y`, with offsets; offsets not given
    /// keep `current`'s, as imgproxy keeps an earlier option's.
    static func gravity(_ args: [String], name: String, current: Gravity, allowsSmart: Bool) throws(ServiceError) -> Gravity {
        guard let kind = Gravity.Anchor(imgproxyName: args[0]), allowsSmart || kind != .smart else {
            let names = Gravity.Anchor.allCases.filter { allowsSmart || $0 != .smart }.map(\.imgproxyName).joined(separator: ", ")
            throw .badOption("gravity '\(args[0])' in '\(name)' is not one of \(names)")
        }
        if kind == .smart {
            guard args.count == 1 else { throw .badOption("smart gravity in '\(name)' takes no offsets") }
            return .smart
        }
        guard kind != .focusPoint || args.count == 3 else { throw .badOption("focus-point gravity in '\(name)' takes x and y (fp:x:y)") }
        guard args.count <= 3 else { throw .badOption("gravity in '\(name)' takes at most two offsets") }
        var result = current.anchor == .smart ? Gravity(kind) : Gravity(kind, offsetX: current.offsetX, offsetY: current.offsetY)
        for i in 1..<args.count where !args[i].isEmpty {
            guard let value = Double(args[i]), value.isFinite, value.magnitude <= Double(largestArgument),
                  kind != .focusPoint || (0...1).contains(value) else {
                throw .badOption("gravity offset '\(args[i])' in '\(name)' is not \(kind == .focusPoint ? "a number in 0...1" : "a number")")
            }
            if i == 1 { result.offsetX = value } else { result.offsetY = value }
        }
        return result
    }

    /// `rgb` or `rrggbb` in hexadecimal.
    static func hexColor(_ text: String, name: String) throws(ServiceError) -> RGBColor {
        guard text.count == 3 || text.count == 6, text.allSatisfy(\.isHexDigit), let value = UInt32(text, radix: 16) else {
            throw .badOption("'\(text)' in '\(name)' is not a hex colour (rgb or rrggbb)")
        }
        if text.count == 3 {
            return RGBColor(red: UInt8(value >> 8 & 0xF) * 17, green: UInt8(value >> 4 & 0xF) * 17, blue: UInt8(value & 0xF) * 17)
        }
        return RGBColor(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }
}

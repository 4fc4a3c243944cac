import LoupeCodecs
import LoupeProcessing

/// One option's arguments as the URL spelled them, and the readers of imgproxy's argument kinds.
/// imgproxy's rules: an empty argument keeps the field's default (`g:no::5` is north with a y
/// offset of 5), except where a declaration says otherwise; anything else that is not a valid
/// value is a `badOption` naming the option (as the URL spelled it) and the argument.
struct OptionArguments {
    /// The option's name as the URL spelled it (an alias, perhaps).
    let name: String
    /// The arguments, empty ones included.
    let values: [String]

    /// Largest pixel count, offset or crop an argument may give: far beyond any real image,
    /// small enough that no arithmetic on it overflows.
    static let largestArgument = 1 << 20

    var count: Int { values.count }

    /// The argument at `index`, `""` when there is none.
    subscript(index: Int) -> String { index < values.count ? values[index] : "" }

    /// The argument at `index` unless it is empty or absent: imgproxy keeps the default then.
    func given(_ index: Int) -> String? { index < values.count && !values[index].isEmpty ? values[index] : nil }

    /// The arguments from `index` on, as another option's (`size`'s inside `resize`).
    func dropping(_ prefix: Int) -> OptionArguments { OptionArguments(name: name, values: Array(values.dropFirst(prefix))) }

    /// Reads the argument at `index` with `read` when it is given (``given(_:)``), else `nil`.
    func given<T>(_ index: Int, _ read: (String) throws(ServiceError) -> T) throws(ServiceError) -> T? {
        guard let text = given(index) else { return nil }
        return try read(text)
    }

    /// A size in pixels, 0 up to ``largestArgument``.
    func dimension(_ text: String) throws(ServiceError) -> Int {
        guard let value = Int(text), value >= 0, value <= Self.largestArgument else {
            throw .badOption("'\(text)' in '\(name)' is not a size in pixels")
        }
        return value
    }

    /// A boolean (``BooleanSpelling``); anything else is a 400 rather than imgproxy's silent `false`.
    func boolean(_ text: String) throws(ServiceError) -> Bool {
        guard let value = BooleanSpelling.value(of: text) else {
            throw .badOption("'\(text)' in '\(name)' is not a boolean (\(BooleanSpelling.accepted))")
        }
        return value
    }

    /// A boolean where imgproxy reads an empty argument as false.
    func flag(_ text: String) throws(ServiceError) -> Bool {
        text.isEmpty ? false : try boolean(text)
    }

    /// A finite number above 0, at most ``largestArgument``.
    func positiveNumber(_ text: String) throws(ServiceError) -> Double {
        guard let value = Double(text), value.isFinite, value > 0, value <= Double(Self.largestArgument) else {
            throw .badOption("'\(text)' in '\(name)' is not a positive number")
        }
        return value
    }

    /// `resizing_type`'s names.
    func resizingType(_ text: String) throws(ServiceError) -> ImageProcessors.BoxResize.Mode {
        guard let mode = ImageProcessors.BoxResize.Mode(rawValue: text) else {
            throw .badOption("resizing type '\(text)' is not one of fit, fill, fill-down, force, auto")
        }
        return mode
    }

    /// `crop`'s sizes: pixels from 1 up, a share of the side below 1.
    func cropSize(_ text: String) throws(ServiceError) -> Double {
        guard let value = Double(text), value.isFinite, value >= 0, value <= Double(Self.largestArgument) else {
            throw .badOption("crop size '\(text)' in '\(name)' is not a number of pixels or a share below 1")
        }
        return value
    }

    /// `ce`, a compass point, `sm` (where allowed) or `fp:x:y`, with offsets, from the argument
    /// at `index` on; offsets not given keep `current`'s, as imgproxy keeps an earlier option's.
    func gravity(from index: Int, current: Gravity, allowsSmart: Bool) throws(ServiceError) -> Gravity {
        let args = Array(values.dropFirst(index))
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
            guard let value = Double(args[i]), value.isFinite, value.magnitude <= Double(Self.largestArgument),
                  kind != .focusPoint || (0...1).contains(value) else {
                throw .badOption("gravity offset '\(args[i])' in '\(name)' is not \(kind == .focusPoint ? "a number in 0...1" : "a number")")
            }
            if i == 1 { result.offsetX = value } else { result.offsetY = value }
        }
        return result
    }

    /// `rgb` or `rrggbb` in hexadecimal.
    func hexColor(_ text: String) throws(ServiceError) -> RGBColor {
        guard text.count == 3 || text.count == 6, text.allSatisfy(\.isHexDigit), let value = UInt32(text, radix: 16) else {
            throw .badOption("'\(text)' in '\(name)' is not a hex colour (rgb or rrggbb)")
        }
        if text.count == 3 {
            return RGBColor(red: UInt8(value >> 8 & 0xF) * 17, green: UInt8(value >> 4 & 0xF) * 17, blue: UInt8(value & 0xF) * 17)
        }
        return RGBColor(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// An image format imgproxy names (``ImgproxyURL/qualityFormat(named:)``), refused when unknown.
    func imageFormat(_ text: String) throws(ServiceError) -> ImageFormat? {
        guard let format = ImgproxyURL.qualityFormat(named: text) else {
            throw .badOption("'\(text)' in '\(name)' is not an image format (jpeg, jpg, png, webp, avif, gif, heic, jxl, ...)")
        }
        return format
    }
}

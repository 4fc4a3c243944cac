import LoupeProcessing

extension ImgproxyURL {
    /// Applies `watermark`/`wm` (`%opacity:%position:%x_offset:%y_offset:%scale`), spelled
    /// `name` in the URL. As imgproxy: the opacity is required, 0...1 (0: no watermark); the
    /// other arguments may be empty (their defaults: centre, no offsets, the mark's own size);
    /// a scale, when given, is above 0; arguments past imgproxy's seventh are refused, and its
    /// sixth and seventh (Pro's) are ignored.
    static func applyWatermark(args: [String], name: String, to options: inout ProcessingOptions) throws(ServiceError) {
        guard (1...7).contains(args.count) else {
            throw .badOption("option '\(name)' takes 1 to 7 arguments, got \(args.count)")
        }
        func argument(_ i: Int) -> String? { i < args.count && !args[i].isEmpty ? args[i] : nil }
        func number(_ text: String, _ what: String) throws(ServiceError) -> Double {
            guard let value = Double(text), value.isFinite, abs(value) <= Double(1 << 20) else {
                throw .badOption("\(what) '\(text)' in '\(name)' is not a number")
            }
            return value
        }
        guard let opacity = Double(args[0]), (0...1).contains(opacity) else {
            throw .badOption("opacity '\(args[0])' in '\(name)' is not a number in 0...1")
        }
        options.watermarkOpacity = opacity
        if let text = argument(1) {
            guard let position = WatermarkPosition(rawValue: text) else {
                let names = WatermarkPosition.allCases.map(\.rawValue).joined(separator: ", ")
                throw .badOption("position '\(text)' in '\(name)' is not one of \(names)")
            }
            options.watermarkPosition = position
        }
        if let text = argument(2) { options.watermarkXOffset = try number(text, "x offset") }
        if let text = argument(3) { options.watermarkYOffset = try number(text, "y offset") }
        if let text = argument(4) {
            let scale = try number(text, "scale")
            guard scale > 0 else { throw .badOption("scale '\(text)' in '\(name)' is not a number above 0") }
            options.watermarkScale = scale
        }
    }
}

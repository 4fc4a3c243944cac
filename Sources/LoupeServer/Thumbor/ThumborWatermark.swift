import LoupeProcessing

/// One `watermark(url,x,y,alpha[,w_ratio[,h_ratio]])` of a thumbor URL, parsed: what the mark's
/// processor (``ImageProcessors.PositionedWatermark``) needs besides the image, which is loaded when the result
/// is made (``ImageService/thumborMarks(for:)``).
struct ThumborWatermark: Sendable, Equatable, ResultKeyText {
    /// The mark's URL as thumbor's HTTP loader takes it (`http://` in front when it names no
    /// scheme).
    var source: String
    var x: ImageProcessors.PositionedWatermark.Position, y: ImageProcessors.PositionedWatermark.Position
    var alpha: Int
    var widthRatio: Double?, heightRatio: Double?

    var resultKeyText: String {
        "\(source.resultKeyText),\(x.text),\(y.text),\(alpha),\(widthRatio.resultKeyText),\(heightRatio.resultKeyText)"
    }

    /// Reads the filter's arguments; a bad one is a 400 naming the filter.
    init(_ call: ThumborFilterCall) throws(ServiceError) {
        guard let url = call.given(0) else { throw call.bad("names no image") }
        source = ThumborURL.withScheme(url)
        x = try Self.position(call, 1)
        y = try Self.position(call, 2)
        alpha = min(try call.integer(3, in: 0...ThumborFilter.wholeNumbers.upperBound), 100)
        widthRatio = try Self.ratio(call, 4)
        heightRatio = try Self.ratio(call, 5)
    }

    /// `n`, `-n`, `np`, `-np`, `center` or `repeat`.
    static func position(_ call: ThumborFilterCall, _ index: Int) throws(ServiceError) -> ImageProcessors.PositionedWatermark.Position {
        let text = call.given(index) ?? ""
        if text == "center" { return .center }
        if text == "repeat" { return .repeat }
        let fromEnd = text.hasPrefix("-")
        var digits = fromEnd ? text.dropFirst() : Substring(text)
        let percent = digits.hasSuffix("p")
        if percent { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.count <= 7, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits) else {
            throw call.bad("'\(text)' is not a position (n, -n, np, -np, center or repeat)")
        }
        return percent ? .percent(value, fromEnd: fromEnd) : .pixels(value, fromEnd: fromEnd)
    }

    /// A percent of the image's side, `none` or absent (no bound); 0 is none, as in thumbor.
    static func ratio(_ call: ThumborFilterCall, _ index: Int) throws(ServiceError) -> Double? {
        guard let text = call.given(index), text != "none" else { return nil }
        let value = try call.integer(index, in: 0...100)
        return value == 0 ? nil : Double(value) / 100
    }
}

/// What a browser says of the display an image is for, in the client hints request headers, which
/// imgproxy reads with `IMGPROXY_ENABLE_CLIENT_HINTS` (`--client-hints`): the device pixel ratio
/// (`Sec-CH-DPR`, else `DPR`) and the width the image takes in device pixels (`Sec-CH-Width`, else
/// `Width`). A URL that names no width or `dpr` gets them, so one `<img>` URL serves every screen
/// at its own size; the URL's own options (and the `default` preset's) come after them and win.
struct ClientHints: Sendable, Equatable {
    /// The device pixel ratio, 0 < dpr ≤ 8 (imgproxy's bound); `nil` when no header gave a valid one.
    var dpr: Double?
    /// The image's width in device pixels, above 0; `nil` when no header gave one.
    var width: Int?

    /// The headers whose values change an answer when the server reads hints: its `Vary`.
    static let headerNames = ["Sec-CH-DPR", "DPR", "Sec-CH-Width", "Width"]

    /// The hints in a request's headers (`header` answers a name's value, `nil` when absent); a
    /// header that does not parse is skipped for the next one, as imgproxy's detector does.
    init(header: (String) -> String?) {
        for name in ["Sec-CH-DPR", "DPR"] {
            if let text = header(name), let value = Double(text), value > 0, value <= 8 {
                dpr = value
                break
            }
        }
        for name in ["Sec-CH-Width", "Width"] {
            if let text = header(name), let value = Int(text), value > 0 {
                width = value
                break
            }
        }
    }

    /// The options a URL's own start from: imgproxy's defaults with the hints as `dpr` and as a
    /// width in CSS pixels (the device width divided by the ratio, rounded), so that the result
    /// is the device width.
    var defaults: ProcessingOptions {
        var options = ProcessingOptions()
        if let dpr { options.dpr = dpr }
        if let width { options.width = Int((Double(width) / options.dpr).rounded()) }
        return options
    }
}

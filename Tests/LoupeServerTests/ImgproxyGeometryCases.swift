/// imgproxy's geometry, as its own processing tests state it for a 200×100 source: each case is
/// a URL's options and the result's width × height imgproxy gives. The cases come from
/// imgproxy's documented rules and the expectations of its `processing/*_test.go`; each table
/// says the rule it checks.
struct GeometryCase: Sendable, CustomStringConvertible {
    let options: String
    let width: Int
    let height: Int
    let rule: String

    init(_ options: String, _ width: Int, _ height: Int, _ rule: String = "") {
        self.options = options
        self.width = width
        self.height = height
        self.rule = rule
    }

    var description: String { "\(options) → \(width)x\(height)\(rule.isEmpty ? "" : " (\(rule))")" }
}

/// The resize types alone and with enlarge, extend and extend_aspect_ratio.
enum ResizeCases {
    /// fit: inside the box, aspect ratio kept, never enlarged; an open side follows the ratio.
    static let resizeToFit: [GeometryCase] = [
        .init("resize:fit:50:50", 50, 25),
        .init("resize:fit:50:20", 40, 20),
        .init("resize:fit:20:50", 20, 10),
        .init("resize:fit:300:300", 200, 100),
        .init("resize:fit:300:50", 100, 50),
        .init("resize:fit:100:300", 100, 50),
        .init("resize:fit:0:50", 100, 50),
        .init("resize:fit:50:0", 50, 25),
        .init("resize:fit:0:200", 200, 100),
        .init("resize:fit:300:0", 200, 100),
    ]

    /// fit with enlarge: the binding side reaches the box.
    static let resizeToFitEnlarge: [GeometryCase] = [
        .init("resize:fit:50:50/enlarge:1", 50, 25),
        .init("resize:fit:50:20/enlarge:1", 40, 20),
        .init("resize:fit:20:50/enlarge:1", 20, 10),
        .init("resize:fit:300:300/enlarge:1", 300, 150),
        .init("resize:fit:300:125/enlarge:1", 250, 125),
        .init("resize:fit:250:300/enlarge:1", 250, 125),
        .init("resize:fit:0:50/enlarge:1", 100, 50),
        .init("resize:fit:50:0/enlarge:1", 50, 25),
        .init("resize:fit:0:200/enlarge:1", 400, 200),
        .init("resize:fit:300:0/enlarge:1", 300, 150),
    ]

    /// fit with extend: the result is padded out to the box; an open side stays the image's.
    static let resizeToFitExtend: [GeometryCase] = [
        .init("resize:fit:50:50/extend:1", 50, 50),
        .init("resize:fit:50:20/extend:1", 50, 20),
        .init("resize:fit:20:50/extend:1", 20, 50),
        .init("resize:fit:300:300/extend:1", 300, 300),
        .init("resize:fit:300:125/extend:1", 300, 125),
        .init("resize:fit:250:300/extend:1", 250, 300),
        .init("resize:fit:0:50/extend:1", 100, 50),
        .init("resize:fit:50:0/extend:1", 50, 25),
        .init("resize:fit:0:200/extend:1", 200, 200),
        .init("resize:fit:300:0/extend:1", 300, 100),
    ]

    /// fit with extend_aspect_ratio: padded to the box's ratio at the image's scale, not enlarged.
    static let resizeToFitExtendAR: [GeometryCase] = [
        .init("resize:fit:50:50/extend_aspect_ratio:1", 50, 50),
        .init("resize:fit:50:20/extend_aspect_ratio:1", 50, 20),
        .init("resize:fit:20:50/extend_aspect_ratio:1", 20, 50),
        .init("resize:fit:300:300/extend_aspect_ratio:1", 200, 200),
        .init("resize:fit:300:125/extend_aspect_ratio:1", 240, 100),
        .init("resize:fit:250:500/extend_aspect_ratio:1", 200, 400),
        .init("resize:fit:0:50/extend_aspect_ratio:1", 100, 50),
        .init("resize:fit:50:0/extend_aspect_ratio:1", 50, 25),
        .init("resize:fit:0:200/extend_aspect_ratio:1", 200, 100),
        .init("resize:fit:300:0/extend_aspect_ratio:1", 200, 100),
    ]

    /// fill: covers the box and cuts the overflow; without enlarge the box shrinks to the image.
    static let resizeToFill: [GeometryCase] = [
        .init("resize:fill:50:50", 50, 50),
        .init("resize:fill:50:20", 50, 20),
        .init("resize:fill:20:50", 20, 50),
        .init("resize:fill:300:300", 200, 100),
        .init("resize:fill:300:50", 200, 50),
        .init("resize:fill:100:300", 100, 100),
        .init("resize:fill:0:50", 100, 50),
        .init("resize:fill:50:0", 50, 25),
        .init("resize:fill:0:200", 200, 100),
        .init("resize:fill:300:0", 200, 100),
    ]

    /// fill with enlarge: exactly the box.
    static let resizeToFillEnlarge: [GeometryCase] = [
        .init("resize:fill:50:50/enlarge:1", 50, 50),
        .init("resize:fill:50:20/enlarge:1", 50, 20),
        .init("resize:fill:20:50/enlarge:1", 20, 50),
        .init("resize:fill:300:300/enlarge:1", 300, 300),
        .init("resize:fill:300:125/enlarge:1", 300, 125),
        .init("resize:fill:250:300/enlarge:1", 250, 300),
        .init("resize:fill:0:50/enlarge:1", 100, 50),
        .init("resize:fill:50:0/enlarge:1", 50, 25),
        .init("resize:fill:0:200/enlarge:1", 400, 200),
        .init("resize:fill:300:0/enlarge:1", 300, 150),
    ]

    /// fill with extend: the cut image is padded out to the box.
    static let resizeToFillExtend: [GeometryCase] = [
        .init("resize:fill:50:50/extend:1", 50, 50),
        .init("resize:fill:50:20/extend:1", 50, 20),
        .init("resize:fill:20:50/extend:1", 20, 50),
        .init("resize:fill:300:300/extend:1", 300, 300),
        .init("resize:fill:300:125/extend:1", 300, 125),
        .init("resize:fill:250:300/extend:1", 250, 300),
        .init("resize:fill:300:50/extend:1", 300, 50),
        .init("resize:fill:100:300/extend:1", 100, 300),
        .init("resize:fill:0:50/extend:1", 100, 50),
        .init("resize:fill:50:0/extend:1", 50, 25),
        .init("resize:fill:0:200/extend:1", 200, 200),
        .init("resize:fill:300:0/extend:1", 300, 100),
    ]

    /// fill with extend_aspect_ratio: padded to the box's ratio, not enlarged.
    static let resizeToFillExtendAR: [GeometryCase] = [
        .init("resize:fill:50:50/extend_aspect_ratio:1", 50, 50),
        .init("resize:fill:50:20/extend_aspect_ratio:1", 50, 20),
        .init("resize:fill:20:50/extend_aspect_ratio:1", 20, 50),
        .init("resize:fill:300:300/extend_aspect_ratio:1", 200, 200),
        .init("resize:fill:300:125/extend_aspect_ratio:1", 240, 100),
        .init("resize:fill:250:500/extend_aspect_ratio:1", 200, 400),
        .init("resize:fill:300:50/extend_aspect_ratio:1", 300, 50),
        .init("resize:fill:100:300/extend_aspect_ratio:1", 100, 300),
        .init("resize:fill:0:50/extend_aspect_ratio:1", 100, 50),
        .init("resize:fill:50:0/extend_aspect_ratio:1", 50, 25),
        .init("resize:fill:0:200/extend_aspect_ratio:1", 200, 100),
        .init("resize:fill:300:0/extend_aspect_ratio:1", 200, 100),
    ]

    /// fill-down: a box larger than the image becomes the largest box of its ratio inside the image.
    static let resizeToFillDown: [GeometryCase] = [
        .init("resize:fill-down:50:50", 50, 50),
        .init("resize:fill-down:50:20", 50, 20),
        .init("resize:fill-down:20:50", 20, 50),
        .init("resize:fill-down:300:300", 100, 100),
        .init("resize:fill-down:300:125", 200, 83),
        .init("resize:fill-down:250:300", 83, 100),
        .init("resize:fill-down:0:50", 100, 50),
        .init("resize:fill-down:50:0", 50, 25),
        .init("resize:fill-down:0:200", 200, 100),
        .init("resize:fill-down:300:0", 200, 100),
    ]

    /// fill-down with enlarge: exactly the box.
    static let resizeToFillDownEnlarge: [GeometryCase] = [
        .init("resize:fill-down:50:50/enlarge:1", 50, 50),
        .init("resize:fill-down:50:20/enlarge:1", 50, 20),
        .init("resize:fill-down:20:50/enlarge:1", 20, 50),
        .init("resize:fill-down:300:300/enlarge:1", 300, 300),
        .init("resize:fill-down:300:125/enlarge:1", 300, 125),
        .init("resize:fill-down:250:300/enlarge:1", 250, 300),
        .init("resize:fill-down:0:50/enlarge:1", 100, 50),
        .init("resize:fill-down:50:0/enlarge:1", 50, 25),
        .init("resize:fill-down:0:200/enlarge:1", 400, 200),
        .init("resize:fill-down:300:0/enlarge:1", 300, 150),
    ]

    /// fill-down with extend: padded out to the box.
    static let resizeToFillDownExtend: [GeometryCase] = [
        .init("resize:fill-down:50:50/extend:1", 50, 50),
        .init("resize:fill-down:50:20/extend:1", 50, 20),
        .init("resize:fill-down:20:50/extend:1", 20, 50),
        .init("resize:fill-down:300:300/extend:1", 300, 300),
        .init("resize:fill-down:300:125/extend:1", 300, 125),
        .init("resize:fill-down:250:300/extend:1", 250, 300),
        .init("resize:fill-down:300:50/extend:1", 300, 50),
        .init("resize:fill-down:100:300/extend:1", 100, 300),
        .init("resize:fill-down:0:50/extend:1", 100, 50),
        .init("resize:fill-down:50:0/extend:1", 50, 25),
        .init("resize:fill-down:0:200/extend:1", 200, 200),
        .init("resize:fill-down:300:0/extend:1", 300, 100),
    ]

    /// fill-down with extend_aspect_ratio: the ratio is kept by the cut, nothing to pad.
    static let resizeToFillDownExtendAR: [GeometryCase] = [
        .init("resize:fill-down:50:50/extend_aspect_ratio:1", 50, 50),
        .init("resize:fill-down:50:20/extend_aspect_ratio:1", 50, 20),
        .init("resize:fill-down:20:50/extend_aspect_ratio:1", 20, 50),
        .init("resize:fill-down:300:300/extend_aspect_ratio:1", 100, 100),
        .init("resize:fill-down:300:125/extend_aspect_ratio:1", 200, 83),
        .init("resize:fill-down:250:300/extend_aspect_ratio:1", 83, 100),
        .init("resize:fill-down:0:50/extend_aspect_ratio:1", 100, 50),
        .init("resize:fill-down:50:0/extend_aspect_ratio:1", 50, 25),
        .init("resize:fill-down:0:200/extend_aspect_ratio:1", 200, 100),
        .init("resize:fill-down:300:0/extend_aspect_ratio:1", 200, 100),
    ]
}

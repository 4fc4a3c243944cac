/// Where a cut is anchored when an image is cut to a box, or where an image sits on a larger
/// canvas (imgproxy's and thumbor's "gravity"): the centre or a compass point moved by offsets,
/// a focus point, or smart. One type for the library's crops (``ImageProcessors.BoxResize``) and the service's
/// imgproxy geometry, which differ only in how they turn it into pixels (see the two placement
/// rules below); the service maps imgproxy's URL names onto ``Anchor``.
public struct Gravity: Sendable, Hashable {
    /// The side or corner the cut keeps, a focus point, or `smart`: the region with the most
    /// detail (``ImageProcessors.BoxResize`` finds it in the image; offsets do not apply to it).
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case center, north, south, east, west, northEast, northWest, southEast, southWest, smart
        /// A point of the image, at `offsetX` × its width and `offsetY` × its height (fractions,
        /// 0...1): the cut is centred on it as far as the image allows (imgproxy's `g:fp`).
        case focusPoint
    }

    /// The anchor.
    public var anchor: Anchor
    /// Horizontal offset: from the anchored edge inwards (from the centre to the right for
    /// `center`, `north` and `south`); a focus point's x as a fraction of the width.
    public var offsetX: Double
    /// Vertical offset: from the anchored edge inwards (from the centre downwards for `center`,
    /// `east` and `west`); a focus point's y as a fraction of the height.
    public var offsetY: Double

    /// A gravity at `anchor`, moved by (`offsetX`, `offsetY`).
    public init(_ anchor: Anchor, offsetX: Double = 0, offsetY: Double = 0) {
        self.anchor = anchor
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// The centre, no offset: a symmetric cut (imgproxy's default).
    public static let center = Gravity(.center)

    /// The region with the most detail (imgproxy's `g:sm`).
    public static let smart = Gravity(.smart)

    /// A cut centred on the point at (`x`, `y`), fractions (0...1) of the image's width and
    /// height.
    public static func focusPoint(x: Double, y: Double) -> Gravity { Gravity(.focusPoint, offsetX: x, offsetY: y) }

    /// The library's placement: the left (`horizontal`) or top edge of a `cut`-long window
    /// inside `length`, in source units, offsets being output pixels that `scale` turns into
    /// source units; always inside `0...length - cut`.
    func origin(length: Double, cut: Double, scale: Double, horizontal: Bool) -> Double {
        let free = max(0, length - cut)
        let value = horizontal ? offsetX : offsetY
        let start: Double = switch anchor.alignment(horizontal: horizontal) {
        case .leading: value / scale
        case .trailing: free - value / scale
        case .middle: free / 2 + value / scale
        case .point: value * length - cut / 2
        }
        return min(max(0, start), free)
    }

    /// imgproxy's placement: the top-left corner of an `innerWidth`×`innerHeight` rectangle
    /// inside (or, for an embedding, around) a `width`×`height` one, kept inside it, with
    /// imgproxy's rounding (halves to even). Offsets of magnitude 1 or more are pixels, scaled
    /// by `dpr`; smaller ones are fractions of the outer size.
    package func position(width: Int, height: Int, innerWidth: Int, innerHeight: Int, dpr: Double) -> (x: Int, y: Int) {
        let (left, top) = unclampedPosition(width: width, height: height, innerWidth: innerWidth, innerHeight: innerHeight, dpr: dpr)
        // Clamped like imgproxy: the lower bound wins when the inner rectangle is the larger.
        return (max(0, min(left, width - innerWidth)), max(0, min(top, height - innerHeight)))
    }

    /// ``position(width:height:innerWidth:innerHeight:dpr:)`` before it is kept inside: a
    /// watermark, which may hang over the edges, clamps it its own way.
    package func unclampedPosition(width: Int, height: Int, innerWidth: Int, innerHeight: Int, dpr: Double) -> (x: Int, y: Int) {
        (start(outer: width, inner: innerWidth, value: offsetX, dpr: dpr, horizontal: true),
         start(outer: height, inner: innerHeight, value: offsetY, dpr: dpr, horizontal: false))
    }

    /// One axis of ``unclampedPosition(width:height:innerWidth:innerHeight:dpr:)``.
    private func start(outer: Int, inner: Int, value: Double, dpr: Double, horizontal: Bool) -> Int {
        let alignment = anchor.alignment(horizontal: horizontal)
        if alignment == .point { return GeometryMath.scaleToEven(outer, value) - inner / 2 }
        let offset = GeometryMath.offset(value, side: outer, dpr: dpr)
        switch alignment {
        case .leading: return offset
        case .trailing: return outer - inner - offset
        case .middle, .point: return GeometryMath.roundToEven(Double(outer - inner + 1) / 2) + offset
        }
    }

    /// Stable text for processor identifiers.
    var identifier: String { "\(anchor.rawValue):\(offsetX):\(offsetY)" }
}

extension Gravity.Anchor {
    /// Where along one axis a window sits for an anchor.
    enum Alignment {
        /// At the left or top edge, the offset counted inwards.
        case leading
        /// Centred, the offset counted right or down.
        case middle
        /// At the right or bottom edge, the offset counted inwards.
        case trailing
        /// Centred on the focus point.
        case point
    }

    /// The alignment along the horizontal axis (`horizontal`) or the vertical one.
    func alignment(horizontal: Bool) -> Alignment {
        switch (horizontal, self) {
        case (_, .focusPoint): .point
        case (true, .west), (true, .northWest), (true, .southWest), (false, .north), (false, .northWest), (false, .northEast): .leading
        case (true, .east), (true, .northEast), (true, .southEast), (false, .south), (false, .southWest), (false, .southEast): .trailing
        default: .middle
        }
    }
}

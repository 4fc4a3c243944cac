/// Where a crop is anchored when an image is cut to a box (imgproxy's and thumbor's
/// "gravity"): the centre or a compass point, moved by an offset in output pixels.
public struct Gravity: Sendable, Hashable {
    /// The side or corner the cut keeps, or `smart`: the region with the most detail
    /// (``BoxResize`` finds it in the image; offsets do not apply to it).
    public enum Anchor: String, Sendable, Hashable, CaseIterable {
        case center, north, south, east, west, northEast, northWest, southEast, southWest, smart
    }

    /// The anchor.
    public var anchor: Anchor
    /// Horizontal offset in output pixels: from the anchored edge inwards (from the centre
    /// to the right for `center`, `north` and `south`).
    public var offsetX: Double
    /// Vertical offset in output pixels: from the anchored edge inwards (from the centre
    /// downwards for `center`, `east` and `west`).
    public var offsetY: Double

    /// A gravity at `anchor`, moved by (`offsetX`, `offsetY`).
    public init(_ anchor: Anchor, offsetX: Double = 0, offsetY: Double = 0) {
        self.anchor = anchor
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// The centre, no offset: a symmetric cut.
    public static let center = Gravity(.center)

    /// The region with the most detail (imgproxy's `g:sm`).
    public static let smart = Gravity(.smart)

    /// The left (`horizontal`) or top edge of a `cut`-long window inside `length`, in source
    /// units, with the offset given in the same units; always inside `0...length - cut`.
    func origin(length: Double, cut: Double, offset: Double, horizontal: Bool) -> Double {
        let free = max(0, length - cut)
        let start: Double
        switch (horizontal, anchor) {
        case (true, .west), (true, .northWest), (true, .southWest): start = offset
        case (true, .east), (true, .northEast), (true, .southEast): start = free - offset
        case (false, .north), (false, .northWest), (false, .northEast): start = offset
        case (false, .south), (false, .southWest), (false, .southEast): start = free - offset
        default: start = free / 2 + offset
        }
        return min(max(0, start), free)
    }

    /// Stable text for processor identifiers.
    var identifier: String { "\(anchor.rawValue):\(offsetX):\(offsetY)" }
}

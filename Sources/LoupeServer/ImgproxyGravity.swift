/// Where imgproxy anchors a cut or an embedding: the centre, a compass point or a focus point,
/// moved by offsets, or smart. Offsets of magnitude 1 or more are pixels (scaled by the
/// result's device-pixel ratio); smaller ones are fractions of the outer size. A focus point's
/// `x` and `y` are fractions (0...1) of the image.
public struct ImgproxyGravity: Sendable, Hashable {
    /// The anchor, by imgproxy's URL names.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case center = "ce", north = "no", south = "so", east = "ea", west = "we"
        case northEast = "noea", northWest = "nowe", southEast = "soea", southWest = "sowe"
        case smart = "sm", focusPoint = "fp"
    }

    /// The anchor.
    public var kind: Kind
    /// Horizontal offset, or the focus point's x.
    public var x: Double
    /// Vertical offset, or the focus point's y.
    public var y: Double

    /// A gravity at `kind`, moved by (`x`, `y`).
    public init(_ kind: Kind, x: Double = 0, y: Double = 0) {
        self.kind = kind
        self.x = x
        self.y = y
    }

    /// The centre, no offset: imgproxy's default.
    public static let center = ImgproxyGravity(.center)

    /// Stable text for result keys and processor identifiers.
    var key: String { "\(kind.rawValue):\(x):\(y)" }

    /// The top-left corner of an `innerWidth`×`innerHeight` rectangle inside (or, for an
    /// embedding, around) a `width`×`height` one, kept inside it, with imgproxy's rounding
    /// (halves to even). `dpr` scales pixel offsets.
    func position(width: Int, height: Int, innerWidth: Int, innerHeight: Int, dpr: Double) -> (x: Int, y: Int) {
        var left: Int, top: Int
        if kind == .focusPoint {
            left = GeometryMath.scaleToEven(width, x) - innerWidth / 2
            top = GeometryMath.scaleToEven(height, y) - innerHeight / 2
        } else {
            let offsetX = x.magnitude >= 1 ? GeometryMath.roundToEven(x * dpr) : GeometryMath.scaleToEven(width, x)
            let offsetY = y.magnitude >= 1 ? GeometryMath.roundToEven(y * dpr) : GeometryMath.scaleToEven(height, y)
            switch kind {
            case .west, .northWest, .southWest: left = offsetX
            case .east, .northEast, .southEast: left = width - innerWidth - offsetX
            default: left = GeometryMath.roundToEven(Double(width - innerWidth + 1) / 2) + offsetX
            }
            switch kind {
            case .north, .northWest, .northEast: top = offsetY
            case .south, .southWest, .southEast: top = height - innerHeight - offsetY
            default: top = GeometryMath.roundToEven(Double(height - innerHeight + 1) / 2) + offsetY
            }
        }
        // Clamped like imgproxy: the lower bound wins when the inner rectangle is the larger.
        left = max(0, min(left, width - innerWidth))
        top = max(0, min(top, height - innerHeight))
        return (left, top)
    }

    /// This gravity as it must be given before the image is rotated by `degrees` clockwise and
    /// flipped, so that cutting first and turning after gives the cut asked for on the turned
    /// image.
    func beforeRotation(degrees: Int, flipX: Bool, flipY: Bool) -> ImgproxyGravity {
        var g = self
        if flipX {
            g.kind = g.kind.mirroredHorizontally
            switch g.kind {
            case .center, .north, .south: g.x = -g.x
            case .focusPoint: g.x = 1 - g.x
            default: break
            }
        }
        if flipY {
            g.kind = g.kind.mirroredVertically
            switch g.kind {
            case .center, .east, .west: g.y = -g.y
            case .focusPoint: g.y = 1 - g.y
            default: break
            }
        }
        switch ((degrees % 360) + 360) % 360 {
        case 90:
            g.kind = g.kind.turned(quarter: 1)
            switch g.kind {
            case .center, .east, .west: (g.x, g.y) = (g.y, -g.x)
            case .focusPoint: (g.x, g.y) = (g.y, 1 - g.x)
            case .smart: break
            default: (g.x, g.y) = (g.y, g.x)
            }
        case 180:
            g.kind = g.kind.turned(quarter: 2)
            switch g.kind {
            case .center: (g.x, g.y) = (-g.x, -g.y)
            case .north, .south: g.x = -g.x
            case .east, .west: g.y = -g.y
            case .focusPoint: (g.x, g.y) = (1 - g.x, 1 - g.y)
            default: break
            }
        case 270:
            g.kind = g.kind.turned(quarter: 3)
            switch g.kind {
            case .center, .north, .south: (g.x, g.y) = (-g.y, g.x)
            case .focusPoint: (g.x, g.y) = (1 - g.y, g.x)
            case .smart: break
            default: (g.x, g.y) = (g.y, g.x)
            }
        default: break
        }
        return g
    }
}

extension ImgproxyGravity.Kind {
    var mirroredHorizontally: Self {
        switch self {
        case .east: .west
        case .west: .east
        case .northEast: .northWest
        case .northWest: .northEast
        case .southEast: .southWest
        case .southWest: .southEast
        default: self
        }
    }

    var mirroredVertically: Self {
        switch self {
        case .north: .south
        case .south: .north
        case .northEast: .southEast
        case .southEast: .northEast
        case .northWest: .southWest
        case .southWest: .northWest
        default: self
        }
    }

    /// The side that, turned `quarter` quarter turns clockwise, lands where this one is.
    func turned(quarter: Int) -> Self {
        let ring: [Self] = [.north, .northEast, .east, .southEast, .south, .southWest, .west, .northWest]
        guard let index = ring.firstIndex(of: self) else { return self }
        return ring[(index - 2 * quarter + 16) % 8]
    }
}

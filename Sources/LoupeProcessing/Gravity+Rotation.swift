/// A gravity carried through a rotation and flips: imgproxy cuts before it turns the image, so
/// the gravity a URL gives for the turned image is turned back first.
extension Gravity {
    /// This gravity as it must be given before the image is rotated by `degrees` clockwise and
    /// flipped, so that cutting first and turning after gives the cut asked for on the turned
    /// image.
    package func beforeRotation(degrees: Int, flipX: Bool, flipY: Bool) -> Gravity {
        var g = self
        if flipX { g.flip(horizontal: true) }
        if flipY { g.flip(horizontal: false) }
        switch ((degrees % 360) + 360) % 360 {
        case 90:
            g.anchor = g.anchor.turned(quarter: 1)
            switch g.anchor {
            case .center, .east, .west: (g.offsetX, g.offsetY) = (g.offsetY, -g.offsetX)
            case .focusPoint: (g.offsetX, g.offsetY) = (g.offsetY, 1 - g.offsetX)
            case .smart: break
            default: (g.offsetX, g.offsetY) = (g.offsetY, g.offsetX)
            }
        case 180:
            g.anchor = g.anchor.turned(quarter: 2)
            switch g.anchor {
            case .center: (g.offsetX, g.offsetY) = (-g.offsetX, -g.offsetY)
            case .north, .south: g.offsetX = -g.offsetX
            case .east, .west: g.offsetY = -g.offsetY
            case .focusPoint: (g.offsetX, g.offsetY) = (1 - g.offsetX, 1 - g.offsetY)
            default: break
            }
        case 270:
            g.anchor = g.anchor.turned(quarter: 3)
            switch g.anchor {
            case .center, .north, .south: (g.offsetX, g.offsetY) = (-g.offsetY, g.offsetX)
            case .focusPoint: (g.offsetX, g.offsetY) = (1 - g.offsetY, g.offsetX)
            case .smart: break
            default: (g.offsetX, g.offsetY) = (g.offsetY, g.offsetX)
            }
        default: break
        }
        return g
    }

    /// The gravity mirrored across the vertical axis (`horizontal`) or the horizontal one: the
    /// anchor swaps sides, a centred offset along that axis changes sign, a focus point's
    /// fraction is mirrored (smart has no offsets to move).
    private mutating func flip(horizontal: Bool) {
        anchor = horizontal ? anchor.mirroredHorizontally : anchor.mirroredVertically
        let value = horizontal ? offsetX : offsetY
        let flipped: Double
        switch anchor.alignment(horizontal: horizontal) {
        case .middle where anchor != .smart: flipped = -value
        case .point: flipped = 1 - value
        default: return
        }
        if horizontal { offsetX = flipped } else { offsetY = flipped }
    }
}

extension Gravity.Anchor {
    /// The anchor seen in a mirror held upright: east and west swap.
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

    /// The anchor seen in a mirror laid flat: north and south swap.
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

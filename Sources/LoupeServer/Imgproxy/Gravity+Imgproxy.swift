import LoupeProcessing

/// imgproxy's URL names for a gravity's anchor (`ce`, `no`, ..., `sm`, `fp`): the service's
/// part of ``Gravity``, which parsing and result keys use.
extension Gravity.Anchor {
    /// The anchor's name in imgproxy URLs.
    var imgproxyName: String {
        switch self {
        case .center: "ce"
        case .north: "no"
        case .south: "so"
        case .east: "ea"
        case .west: "we"
        case .northEast: "noea"
        case .northWest: "nowe"
        case .southEast: "soea"
        case .southWest: "sowe"
        case .smart: "sm"
        case .focusPoint: "fp"
        }
    }

    /// The anchor an imgproxy URL names, or nil for a name imgproxy does not know.
    init?(imgproxyName name: String) {
        guard let anchor = Self.allCases.first(where: { $0.imgproxyName == name }) else { return nil }
        self = anchor
    }
}

extension Gravity {
    /// Stable text for result keys and processor identifiers, by imgproxy's names (so that a
    /// result's key does not depend on the library's spelling of an anchor).
    var key: String { "\(anchor.imgproxyName):\(offsetX):\(offsetY)" }
}

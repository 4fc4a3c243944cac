/// imgproxy's integer rounding, in one place: sizes round half away from zero, positions and
/// paddings half to even. Results are clamped to a range no geometry reaches, so that no
/// input can trap a conversion. Package-wide: the service's imgproxy geometry and
/// ``Gravity``'s imgproxy placement share it.
package enum GeometryMath {
    package static let bound = Double(1 << 40)

    package static func int(_ value: Double) -> Int {
        guard value.isFinite else { return value > 0 ? Int(bound) : value < 0 ? -Int(bound) : 0 }
        return Int(min(max(value, -bound), bound))
    }

    package static func round(_ value: Double) -> Int { int(value.rounded()) }
    package static func roundToEven(_ value: Double) -> Int { int(value.rounded(.toNearestOrEven)) }

    /// `a` × `scale`, rounded; 0 stays 0.
    package static func scale(_ a: Int, _ scale: Double) -> Int { a == 0 ? 0 : round(Double(a) * scale) }
    /// `a` × `scale`, rounded half to even; 0 stays 0.
    package static func scaleToEven(_ a: Int, _ scale: Double) -> Int { a == 0 ? 0 : roundToEven(Double(a) * scale) }
    /// imgproxy's offset along a `side`-long edge: from magnitude 1, pixels scaled by `dpr`;
    /// below it, a share of the side. Both rounded half to even.
    package static func offset(_ value: Double, side: Int, dpr: Double) -> Int {
        value.magnitude >= 1 ? roundToEven(value * dpr) : scaleToEven(side, value)
    }
    /// The smaller of two sizes, 0 meaning "not set".
    package static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }
}

/// A colour in the hue/saturation/brightness model of UIKit's
/// `UIColor(hue:saturation:brightness:alpha:)` and `getHue(_:saturation:brightness:alpha:)`
/// (HSV: brightness is the largest channel). Components are 0...1; hue 0 and 1 are red.
public struct HSBColor: Sendable, Hashable {
    /// Hue in 0..<1 (0 for greys, as UIKit reports).
    public var hue: Double
    /// Saturation in 0...1.
    public var saturation: Double
    /// Brightness in 0...1.
    public var brightness: Double

    /// Creates a colour; values outside 0...1 are clamped, hue wraps around.
    public init(hue: Double, saturation: Double, brightness: Double) {
        let wrapped = hue - hue.rounded(.down)
        self.hue = wrapped.isFinite ? wrapped : 0
        self.saturation = saturation.isFinite ? min(max(saturation, 0), 1) : 0
        self.brightness = brightness.isFinite ? min(max(brightness, 0), 1) : 0
    }

    /// The hue, saturation and brightness of an 8-bit colour (UIKit's `getHue`).
    public init(_ color: RGBColor) {
        let r = Double(color.red) / 255, g = Double(color.green) / 255, b = Double(color.blue) / 255
        let high = max(r, g, b), low = min(r, g, b), range = high - low
        var hue = 0.0
        if range > 0 {
            if high == r {
                hue = (g - b) / range
            } else if high == g {
                hue = 2 + (b - r) / range
            } else {
                hue = 4 + (r - g) / range
            }
            hue /= 6
            if hue < 0 { hue += 1 }
        }
        self.init(hue: hue, saturation: high > 0 ? range / high : 0, brightness: high)
    }

    /// The 8-bit colour, each channel rounded to the nearest of 0...255 (what a UIKit colour
    /// gives when drawn into an 8-bit context).
    public var rgb: RGBColor {
        let sector = hue * 6
        let index = Int(sector.rounded(.down)) % 6
        let fraction = sector - sector.rounded(.down)
        let v = brightness, s = saturation
        let p = v * (1 - s), q = v * (1 - s * fraction), t = v * (1 - s * (1 - fraction))
        let (r, g, b): (Double, Double, Double) = switch index {
        case 0: (v, t, p)
        case 1: (q, v, p)
        case 2: (p, v, t)
        case 3: (p, q, v)
        case 4: (t, p, v)
        default: (v, p, q)
        }
        func byte(_ x: Double) -> UInt8 { UInt8(min(max((x * 255).rounded(), 0), 255)) }
        return RGBColor(red: byte(r), green: byte(g), blue: byte(b))
    }
}

import Foundation

extension ImageProcessors.ColorTransform {
    /// thumbor's `saturation(f)`: each channel pushed away from the pixel's perceived
    /// brightness (the square root of the 0.299/0.587/0.114-weighted squares) by the factor `f`
    /// — 0 grey, 1 unchanged, above 1 more saturated — in single precision and truncated, as
    /// thumbor computes it.
    public static func saturation(factor: Double) -> Self {
        let change = Float(factor)
        return Self(name: "saturation(\(factor))") {
            { red, green, blue in
                let r = Double(red), g = Double(green), b = Double(blue)
                let brightness = Float(sqrt(r * r * 0.299 + g * g * 0.587 + b * b * 0.114))
                red = truncated(brightness + (Float(red) - brightness) * change)
                green = truncated(brightness + (Float(green) - brightness) * change)
                blue = truncated(brightness + (Float(blue) - brightness) * change)
            }
        }
    }

    /// C's `(int)` of a float, held in range first (the clamp to 0...255 follows).
    static func truncated(_ value: Float) -> Int { value.isFinite ? Int(max(min(value, 1e6), -1e6)) : 0 }
}

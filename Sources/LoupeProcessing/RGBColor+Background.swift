extension RGBColor {
    /// The poster feed's cell background for a poster whose dominant colour is `self`: the same hue
    /// at saturation 0.08 and brightness 0.95, opaque (UIKit's HSB model), as 8-bit RGB. A
    /// grey has hue 0 in that model, so greys give the faint warm tint UIKit gives them.
    public var backgroundColor: RGBColor {
        HSBColor(hue: HSBColor(self).hue, saturation: 0.08, brightness: 0.95).rgb
    }
}

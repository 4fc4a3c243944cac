extension ImageProcessors.ChannelTables {
    /// thumbor's `colorize(r,g,b,color)`: each channel blended towards `color`'s by its own
    /// percentage (0 unchanged, 100 the colour), truncated.
    public static func colorize(redPercent: Int, greenPercent: Int, bluePercent: Int, color: RGBColor) -> Self {
        func blend(_ percent: Int, _ target: UInt8) -> (Int) -> Int {
            { value in Int((Double(value) * (100 - Double(percent)) + Double(target) * Double(percent)) / 100) }
        }
        return Self(name: "colorize(\(redPercent),\(greenPercent),\(bluePercent),\(color.hex))",
                             red: blend(redPercent, color.red), green: blend(greenPercent, color.green), blue: blend(bluePercent, color.blue))
    }
}

extension ImageProcessors.ChannelTables {
    /// thumbor's `rgb(r,g,b)`: each channel shifted by its own percent of 255 (whole numbers,
    /// truncated), clamped.
    public static func channelOffset(red: Int, green: Int, blue: Int) -> Self {
        let deltas = (255 * red / 100, 255 * green / 100, 255 * blue / 100)
        return Self(name: "rgb(\(red),\(green),\(blue))", red: { $0 + deltas.0 }, green: { $0 + deltas.1 }, blue: { $0 + deltas.2 })
    }
}

extension ImageProcessors.ChannelTables {
    /// thumbor's `brightness(n)`: `n` percent of 255 (whole numbers, truncated) added to each of
    /// red, green and blue, clamped.
    public static func brightness(percent: Int) -> Self {
        let delta = 255 * percent / 100
        return Self(name: "brightness(\(percent))", red: { $0 + delta }, green: { $0 + delta }, blue: { $0 + delta })
    }
}

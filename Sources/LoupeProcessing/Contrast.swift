extension ImageProcessors.ChannelTables {
    /// thumbor's `contrast(n)`: each of red, green and blue moved away from (or towards) 128 by
    /// the factor (n + 100)² / 100 percent, in whole numbers truncated as thumbor's, clamped.
    public static func contrast(percent: Int) -> Self {
        let factor = (percent + 100) * (percent + 100) / 100
        let stretch = { (value: Int) in factor * (value - 128) / 100 + 128 }
        return Self(name: "contrast(\(percent))", red: stretch, green: stretch, blue: stretch)
    }
}

/// Sizes for people, in the binary units `--memory-limit` and `--disk-limit` count in:
/// `512 B`, `7.7 KiB`, `256.0 MiB`.
enum ByteCount {
    static func format(_ count: Int) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}

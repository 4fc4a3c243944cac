import Foundation

/// What the settings' declarations (``ServerSettings/all``) are read into: the settings
/// themselves, and the parts that only mean something together — signing keys with their salts,
/// presets with their file, the three watermark sources and the fallback image's three — which
/// ``ServerSettings/init(flags:environment:)`` combines once all are read.
struct SettingsDraft: Sendable {
    var settings = ServerSettings()
    var keys: [Data] = []
    var salts: [Data] = []
    var presets: [String] = []
    var presetFileLines: [String] = []
    var watermarkData: (value: String, origin: String)?
    var watermarkPath: (value: String, origin: String)?
    var watermarkURL: (value: String, origin: String)?
    var fallbackImageData: (value: String, origin: String)?
    var fallbackImagePath: (value: String, origin: String)?
    var fallbackImageURL: (value: String, origin: String)?
}

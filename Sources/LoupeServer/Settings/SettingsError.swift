/// A setting of `loupe serve` that cannot be used; its message is the one line printed at
/// start-up before exiting with status 2.
public struct SettingsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the setting.
    public let description: String

    /// An error with `description`, one line naming the setting.
    public init(_ description: String) {
        self.description = description
    }
}

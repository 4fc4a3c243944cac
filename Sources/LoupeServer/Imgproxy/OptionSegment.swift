/// One `name:arg:arg` segment of a URL's options (or a preset's), its option looked up: what
/// presets store and URLs apply, so a preset expands into parsed segments, never into text
/// parsed again.
struct OptionSegment: Sendable {
    /// The declaration the segment's name names.
    let option: ImgproxyOption
    /// The arguments, with the name as spelled (for error messages).
    let arguments: OptionArguments

    /// Splits `text` at `separator` and looks its name up; an option Loupe does not take is
    /// refused by name.
    init(_ text: String, separator: Character = ":") throws(ServiceError) {
        let parts = text.split(separator: separator, omittingEmptySubsequences: false).map(String.init)
        guard let option = ImgproxyOption.byName[parts[0]], option.isSupported else { throw .unsupportedOption(parts[0]) }
        self.option = option
        arguments = OptionArguments(name: parts[0], values: Array(parts.dropFirst()))
    }

    /// The preset names of a `preset`/`pr` segment; `nil` for any other option.
    var presetNames: [String]? { option.name == ImgproxyOption.preset.name ? arguments.values : nil }

    /// Sets what the segment asks for in `options`, after checking its argument count.
    func apply(to options: inout ProcessingOptions) throws(ServiceError) {
        let range = option.arguments
        guard range.contains(arguments.count) else {
            let expected = range.lowerBound == range.upperBound ? "\(range.lowerBound)"
                : range.upperBound == Int.max ? "at least \(range.lowerBound)" : "\(range.lowerBound) to \(range.upperBound)"
            throw .badOption("option '\(arguments.name)' takes \(expected) arguments, got \(arguments.count)")
        }
        try option.apply(arguments, &options)
    }
}

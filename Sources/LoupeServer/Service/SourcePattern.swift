/// Text with imgproxy's allowed-source wildcard: `*` stands for any run of characters without a
/// `/` (imgproxy's `env.RegexpFromPattern` makes it `([^/]*)`), everything else for itself.
/// ``SourcePolicy`` matches a pattern's host against a source's whole host and its path one
/// `/`-separated segment at a time, so a `*` never reaches past the part it was written in.
struct SourcePattern: Sendable, Equatable {
    /// The text between the wildcards (one more piece than wildcards).
    let pieces: [String]

    init(_ text: String) {
        pieces = text.split(separator: "*" as Character, omittingEmptySubsequences: false).map(String.init)
    }

    /// Whether the pattern holds a wildcard.
    var hasWildcard: Bool { pieces.count > 1 }

    /// Whether all of `text` matches: the first piece at its start, the last at its end, the
    /// others in order between, each `*` taking any run without a `/`. Taking each piece at its
    /// first place from the left is enough (a later place leaves less text for the rest), so
    /// the match is one pass.
    func matches(_ text: some StringProtocol) -> Bool {
        let text = Substring(text)
        guard let first = pieces.first, text.hasPrefix(first) else { return false }
        guard pieces.count > 1, let last = pieces.last else { return text == first }
        var rest = text.dropFirst(first.count)
        guard rest.count >= last.count, rest.hasSuffix(last) else { return false }
        var middle = rest.dropLast(last.count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = middle.firstRange(of: piece) else { return false }
            guard !middle[..<found.lowerBound].contains("/") else { return false }
            middle = middle[found.upperBound...]
        }
        rest = middle
        return !rest.contains("/")
    }
}

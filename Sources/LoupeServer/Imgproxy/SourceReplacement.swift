/// One of imgproxy's source URL replacements (`IMGPROXY_URL_REPLACEMENTS`): a pattern matched
/// at the start of a source, where each `*` stands for any run of characters without `/`, and
/// the text that replaces what it matched, in which `${1}` (or `$1`) is what the first `*`
/// stood for. `test://*/=http://images.example.com/${1}/` turns `test://a/b.jpg` into
/// `http://images.example.com/a/b.jpg`.
///
/// Matched as imgproxy's regular expression `^lit([^/]*)lit…` matches: each `*` takes the
/// longest run that lets the rest of the pattern match.
public struct SourceReplacement: Sendable, Equatable {
    /// The pattern, `*` as the wildcard.
    public let pattern: String
    /// The replacement, with `${n}` / `$n` for the n-th wildcard and `$$` for `$`.
    public let replacement: String
    private let literals: [[UInt8]]

    /// A replacement of what `pattern` matches with `replacement`.
    public init(pattern: String, replacement: String) {
        self.pattern = pattern
        self.replacement = replacement
        literals = pattern.split(separator: "*", omittingEmptySubsequences: false).map { Array($0.utf8) }
    }

    /// imgproxy's list, `pattern=replacement;pattern=replacement`; `nil` when an item has no `=`.
    public static func list(_ text: String) -> [SourceReplacement]? {
        var replacements: [SourceReplacement] = []
        for item in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = item.firstIndex(of: "=") else { return nil }
            replacements.append(SourceReplacement(pattern: String(item[..<equals]), replacement: String(item[item.index(after: equals)...])))
        }
        return replacements
    }

    public static func == (lhs: SourceReplacement, rhs: SourceReplacement) -> Bool {
        lhs.pattern == rhs.pattern && lhs.replacement == rhs.replacement
    }

    /// `source` with its matching start replaced; unchanged when the pattern does not match.
    public func apply(to source: String) -> String {
        let bytes = Array(source.utf8)
        guard let (end, captures) = match(bytes) else { return source }
        return expanded(bytes, captures: captures, end: end) + String(decoding: bytes[end...], as: UTF8.self)
    }

    /// Where the pattern's match at the start of `bytes` ends, and each wildcard's range; `nil`
    /// when it does not match. In time linear in the source (a source is the client's, and a
    /// backtracking search over several wildcards is polynomial in its length): which starts
    /// of each literal can begin a match of the rest is found from the last literal back, then
    /// each wildcard takes the longest run that reaches such a start.
    private func match(_ bytes: [UInt8]) -> (end: Int, captures: [Range<Int>])? {
        let count = bytes.count
        // The end of the run of non-`/` bytes from each position: how far a wildcard reaches.
        var runEnd = [Int](repeating: count, count: count + 1)
        for position in stride(from: count - 1, through: 0, by: -1) {
            runEnd[position] = bytes[position] == UInt8(ascii: "/") ? position : runEnd[position + 1]
        }
        func literalMatches(_ literal: [UInt8], at position: Int) -> Bool {
            guard position + literal.count <= count else { return false }
            for (offset, byte) in literal.enumerated() where bytes[position + offset] != byte { return false }
            return true
        }
        // latestStart[i][x]: the last position at or before x where literal i can begin a match
        // of the pattern's rest, -1 if none.
        var latestStart = [[Int]](repeating: [], count: literals.count)
        for index in stride(from: literals.count - 1, through: 0, by: -1) {
            var latest = [Int](repeating: -1, count: count + 1)
            var last = -1
            for position in 0...count {
                let literal = literals[index]
                if literalMatches(literal, at: position) {
                    let after = position + literal.count
                    if index == literals.count - 1 || latestStart[index + 1][runEnd[after]] >= after { last = position }
                }
                latest[position] = last
            }
            latestStart[index] = latest
        }
        guard latestStart[0][0] == 0 else { return nil }
        var position = literals[0].count
        var captures: [Range<Int>] = []
        for index in 1..<literals.count {
            let end = latestStart[index][runEnd[position]]
            captures.append(position..<end)
            position = end + literals[index].count
        }
        return (position, captures)
    }

    /// The replacement with its references to captures filled in.
    private func expanded(_ bytes: [UInt8], captures: [Range<Int>], end: Int) -> String {
        var result = ""
        var characters = Substring(replacement)
        while let dollar = characters.firstIndex(of: "$") {
            result += characters[..<dollar]
            characters = characters[characters.index(after: dollar)...]
            if characters.first == "$" {
                result += "$"
                characters = characters.dropFirst()
                continue
            }
            var name: Substring
            if characters.first == "{", let close = characters.firstIndex(of: "}") {
                name = characters[characters.index(after: characters.startIndex)..<close]
                characters = characters[characters.index(after: close)...]
            } else {
                name = characters.prefix { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
                characters = characters.dropFirst(name.count)
                if name.isEmpty {
                    result += "$"
                    continue
                }
            }
            // Group 0 is the whole match, as in a regular expression; an unknown name is empty.
            if let number = Int(name), number >= 1, number <= captures.count {
                result += String(decoding: bytes[captures[number - 1]], as: UTF8.self)
            } else if name == "0" {
                result += String(decoding: bytes[0..<end], as: UTF8.self)
            }
        }
        return result + characters
    }
}

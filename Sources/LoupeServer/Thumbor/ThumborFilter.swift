/// One thumbor filter, declared once: its name, how many arguments it takes, what it sets in
/// ``ProcessingOptions`` (the same field, and so the same processor, as its imgproxy twin where
/// one exists), and its row of `docs/thumbor.md`. A filter Loupe does not build is declared too
/// (``isBuilt`` false), so its row is honest and it is ignored the way thumbor ignores a filter
/// it does not know; a filter nobody declared is ignored as thumbor ignores it.
struct ThumborFilter: Sendable {
    let name: String
    /// How many `,`-separated arguments it takes.
    let arguments: ClosedRange<Int>
    /// Whether Loupe applies it; one it does not is accepted and ignored.
    let isBuilt: Bool
    /// What the filter does in thumbor and what Loupe does with it.
    let documentation: String
    /// Reads the arguments into the options; a bad argument is a `badOption` naming the filter.
    let apply: @Sendable (ThumborFilterCall, inout ProcessingOptions) throws(ServiceError) -> Void

    init(_ name: String, arguments: ClosedRange<Int>, isBuilt: Bool = true, _ documentation: String,
         apply: @escaping @Sendable (ThumborFilterCall, inout ProcessingOptions) throws(ServiceError) -> Void) {
        self.name = name
        self.arguments = arguments
        self.isBuilt = isBuilt
        self.documentation = documentation
        self.apply = apply
    }

    /// A filter thumbor has that Loupe accepts and ignores.
    static func ignored(_ name: String, arguments: ClosedRange<Int>, _ documentation: String) -> ThumborFilter {
        ThumborFilter(name, arguments: arguments, isBuilt: false, documentation) { _, _ in }
    }

    /// Every declared filter by name.
    static let byName: [String: ThumborFilter] = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The row of each filter in `docs/thumbor.md`'s table, in declaration order.
    static var documentationTable: String {
        (["| filter | Loupe |", "|---|---|"] + all.map { "| `\($0.name)` | \($0.isBuilt ? "" : "ignored: ")\($0.documentation) |" })
            .joined(separator: "\n")
    }
}

/// One `name(args)` of a URL's `filters:` part, as spelled.
struct ThumborFilterCall: Sendable, Equatable {
    let name: String
    /// The arguments, trimmed; empty for `name()`.
    let values: [String]

    /// Splits `filters:a(1):b(x,y)` (without the `filters:` prefix) at the colons outside
    /// parentheses; a part that is not `name(args)` is skipped, as thumbor skips it.
    static func parse(_ text: String) -> [ThumborFilterCall] {
        var calls: [ThumborFilterCall] = []
        var depth = 0
        var current = ""
        for character in text {
            if character == ":", depth == 0 {
                if let call = ThumborFilterCall(current) { calls.append(call) }
                current = ""
                continue
            }
            if character == "(" { depth += 1 } else if character == ")" { depth = max(0, depth - 1) }
            current.append(character)
        }
        if let call = ThumborFilterCall(current) { calls.append(call) }
        return calls
    }

    init(name: String, values: [String]) {
        self.name = name
        self.values = values
    }

    init?(_ text: String) {
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")"), open != text.startIndex else { return nil }
        name = String(text[..<open])
        let inner = text[text.index(after: open)..<text.index(before: text.endIndex)]
        values = inner.isEmpty ? [] : Self.split(inner).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The arguments: split at the commas outside brackets and parentheses, so that a curve's
    /// `[(0,0),(255,255)]` is one argument.
    static func split(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var depth = 0
        var start = text.startIndex
        for index in text.indices {
            switch text[index] {
            case "(", "[": depth += 1
            case ")", "]": depth = max(0, depth - 1)
            case "," where depth == 0:
                parts.append(text[start..<index])
                start = text.index(after: index)
            default: break
            }
        }
        parts.append(text[start...])
        return parts
    }

    /// The argument at `index`, `nil` when absent or empty.
    func given(_ index: Int) -> String? { index < values.count && !values[index].isEmpty ? values[index] : nil }

    /// A bad argument, named.
    func bad(_ why: String) -> ServiceError { .badOption("filter '\(name)': \(why)") }

    /// A whole number in `range`.
    func integer(_ index: Int, in range: ClosedRange<Int>) throws(ServiceError) -> Int {
        guard let text = given(index), let value = Int(text), range.contains(value) else {
            throw bad("'\(index < values.count ? values[index] : "")' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// thumbor's boolean: `true`, `True`, `1`, `false`, `False` or `0`.
    func boolean(_ index: Int) throws(ServiceError) -> Bool {
        switch given(index) {
        case "true", "True", "1": return true
        case "false", "False", "0": return false
        default: throw bad("'\(index < values.count ? values[index] : "")' is not true, false, 1 or 0")
        }
    }

    /// A finite number in `range`.
    func number(_ index: Int, in range: ClosedRange<Double>) throws(ServiceError) -> Double {
        guard let text = given(index), let value = Double(text), value.isFinite, range.contains(value) else {
            throw bad("'\(index < values.count ? values[index] : "")' is not a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }
}

/// A small XML tokenizer over an SVG document's bytes, for the three readers that must not
/// hand the document to an XML library first: format sniffing (is the root element `svg`?),
/// the decoder's refusal of entity declarations before librsvg parses anything, and the
/// sanitiser, which copies every kept token's bytes unchanged.
///
/// It reads the syntax XML's well-formedness rules give (declarations, processing
/// instructions, comments, CDATA, a DOCTYPE with its internal subset, start and end tags with
/// quoted attributes, text) and expands nothing: entities stay as written, so no entity can
/// make the document larger than its bytes. Every token is found by a forward scan, so a
/// document costs time linear in its size; a token that does not end, or does not read, is a
/// ``SVGSanitizationError/malformed(_:)``. UTF-8 (and ASCII) only: every byte it looks for is
/// ASCII, and other encodings' documents do not sniff as SVG.
struct SVGMarkup {
    /// One token and where it lies in the bytes.
    enum Token: Equatable {
        /// `<?xml …?>`, the XML declaration.
        case declaration
        /// `<?target …?>`, any other processing instruction (`xml-stylesheet` among them).
        case processingInstruction
        /// `<!-- … -->`.
        case comment
        /// `<![CDATA[ … ]]>`.
        case cdata
        /// `<!DOCTYPE …>`; `declaresEntitiesOrDefaults`: its internal subset declares an entity
        /// or an attribute list (whose defaults add attributes the document does not show).
        case doctype(declaresEntitiesOrDefaults: Bool)
        /// `<name attributes…>` or `<name …/>`.
        case startTag(name: Range<Int>, attributes: [Attribute], selfClosing: Bool)
        /// `</name>`.
        case endTag(name: Range<Int>)
        /// Character data between markup, entities unexpanded.
        case text
    }

    /// One attribute of a start tag.
    struct Attribute: Equatable {
        /// The attribute with the white space before it: what is cut to remove it.
        let whole: Range<Int>
        /// Its qualified name (`xlink:href`).
        let name: Range<Int>
        /// Its value inside the quotes, as written.
        let value: Range<Int>
    }

    let bytes: [UInt8]
    private(set) var position: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        // A UTF-8 byte order mark is not markup.
        position = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
    }

    /// The next token and its range, or nil at the end of the bytes.
    mutating func next() throws(SVGSanitizationError) -> (token: Token, range: Range<Int>)? {
        guard position < bytes.count else { return nil }
        let start = position
        guard bytes[start] == UInt8(ascii: "<") else {
            position = find([UInt8(ascii: "<")], from: start) ?? bytes.count
            return (.text, start..<position)
        }
        let token: Token
        if matches("<?", at: start) {
            position = try end(of: "?>", from: start + 2, what: "processing instruction")
            let isDeclaration = matches("<?xml", at: start) && start + 5 < bytes.count && Self.isSpace(bytes[start + 5])
            token = isDeclaration ? .declaration : .processingInstruction
        } else if matches("<!--", at: start) {
            position = try end(of: "-->", from: start + 4, what: "comment")
            token = .comment
        } else if matches("<![CDATA[", at: start) {
            position = try end(of: "]]>", from: start + 9, what: "CDATA section")
            token = .cdata
        } else if matches("<!DOCTYPE", at: start) {
            token = .doctype(declaresEntitiesOrDefaults: try readDoctype(from: start + 9))
        } else if matches("</", at: start) {
            let name = readName(from: start + 2)
            guard !name.isEmpty else { throw .malformed("an end tag without a name at byte \(start)") }
            position = skipSpace(from: name.upperBound)
            guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw .malformed("an unterminated end tag at byte \(start)") }
            position += 1
            token = .endTag(name: name)
        } else if matches("<!", at: start) {
            throw .malformed("a declaration other than DOCTYPE at byte \(start)")
        } else {
            token = try readStartTag(from: start)
        }
        return (token, start..<position)
    }

    /// The local part of a qualified name (`href` of `xlink:href`), lowercased: SVG's names are
    /// case-sensitive, but the sanitiser's lists match every spelling.
    func localName(_ name: Range<Int>) -> String {
        let slice = bytes[name]
        let local = slice.lastIndex(of: UInt8(ascii: ":")).map { slice[($0 + 1)...] } ?? slice
        return String(decoding: local, as: UTF8.self).lowercased()
    }

    /// The bytes of `range` as text.
    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// Whether the document's root element is `svg` (any prefix), reading only the prolog
    /// before it: false for anything else, or for bytes that end or break before it.
    static func rootIsSVG(_ bytes: [UInt8]) -> Bool {
        var markup = SVGMarkup(bytes)
        // Each token moves forward, so this ends within the bytes' length.
        while let (token, range) = try? markup.next() {
            switch token {
            case .declaration, .processingInstruction, .comment, .doctype: continue
            case .text where range.allSatisfy({ isSpace(bytes[$0]) }): continue
            case let .startTag(name, _, _): return markup.localName(name) == "svg"
            default: return false
            }
        }
        return false
    }

    /// Throws ``SVGSanitizationError/entityDeclarations`` when the prolog's DOCTYPE declares
    /// entities or attribute defaults, and ``SVGSanitizationError/malformed(_:)`` when the
    /// prolog does not read (a DOCTYPE cut short could hide a declaration); reads nothing past
    /// the root element's start, which the parser that reads the document next checks.
    static func refuseEntityDeclarations(_ bytes: [UInt8]) throws(SVGSanitizationError) {
        var markup = SVGMarkup(bytes)
        while let next = try markup.next() {
            switch next.token {
            case .doctype(declaresEntitiesOrDefaults: true): throw .entityDeclarations
            case .startTag: return
            default: continue
            }
        }
    }

    // MARK: - Reading

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private func matches(_ literal: StaticString, at offset: Int) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return literal.withUTF8Buffer { literal in (0..<count).allSatisfy { bytes[offset + $0] == literal[$0] } }
    }

    private func find(_ needle: [UInt8], from offset: Int) -> Int? {
        guard let first = needle.first else { return offset }
        var index = offset
        while index + needle.count <= bytes.count {
            if bytes[index] == first, (1..<needle.count).allSatisfy({ bytes[index + $0] == needle[$0] }) { return index }
            index += 1
        }
        return nil
    }

    /// The offset just past `terminator`, searched from `offset`.
    private func end(of terminator: StaticString, from offset: Int, what: String) throws(SVGSanitizationError) -> Int {
        let needle = terminator.withUTF8Buffer { Array($0) }
        guard let found = find(needle, from: offset) else { throw .malformed("an unterminated \(what)") }
        return found + needle.count
    }

    private func skipSpace(from offset: Int) -> Int {
        var index = offset
        while index < bytes.count, Self.isSpace(bytes[index]) { index += 1 }
        return index
    }

    /// A name: every byte up to white space or markup punctuation.
    private func readName(from offset: Int) -> Range<Int> {
        var index = offset
        while index < bytes.count {
            let byte = bytes[index]
            if Self.isSpace(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "=")
                || byte == UInt8(ascii: "<") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") { break }
            index += 1
        }
        return offset..<index
    }

    /// Reads a DOCTYPE from just after `<!DOCTYPE` to its `>`, through its quoted identifiers
    /// and its internal subset (whose comments and quoted strings may hold `]` and `>`).
    /// Returns whether the subset declares an entity or an attribute list.
    private mutating func readDoctype(from offset: Int) throws(SVGSanitizationError) -> Bool {
        var index = offset
        var declares = false
        var inSubset = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                guard let close = find([byte], from: index + 1) else { break }
                index = close + 1
            } else if inSubset && matches("<!--", at: index) {
                index = try end(of: "-->", from: index + 4, what: "comment in the DOCTYPE")
            } else if inSubset && (matches("<!ENTITY", at: index) || matches("<!ATTLIST", at: index)) {
                declares = true
                index += 2
            } else if byte == UInt8(ascii: "[") && !inSubset {
                inSubset = true
                index += 1
            } else if byte == UInt8(ascii: "]") && inSubset {
                inSubset = false
                index += 1
            } else if byte == UInt8(ascii: ">") && !inSubset {
                position = index + 1
                return declares
            } else {
                index += 1
            }
        }
        throw .malformed("an unterminated DOCTYPE")
    }

    /// Reads `<name attributes…>` or `…/>`: each attribute a name, `=` and a quoted value, after
    /// white space.
    private mutating func readStartTag(from start: Int) throws(SVGSanitizationError) -> Token {
        let name = readName(from: start + 1)
        guard !name.isEmpty else { throw .malformed("a '<' that starts no tag at byte \(start)") }
        var attributes: [Attribute] = []
        var index = name.upperBound
        while true {
            let spaced = skipSpace(from: index)
            guard spaced < bytes.count else { throw .malformed("an unterminated start tag at byte \(start)") }
            if bytes[spaced] == UInt8(ascii: ">") {
                position = spaced + 1
                return .startTag(name: name, attributes: attributes, selfClosing: false)
            }
            if matches("/>", at: spaced) {
                position = spaced + 2
                return .startTag(name: name, attributes: attributes, selfClosing: true)
            }
            let attributeName = readName(from: spaced)
            guard spaced > index, !attributeName.isEmpty else { throw .malformed("an unreadable attribute at byte \(spaced)") }
            let equals = skipSpace(from: attributeName.upperBound)
            guard equals < bytes.count, bytes[equals] == UInt8(ascii: "=") else {
                throw .malformed("an attribute without a value at byte \(spaced)")
            }
            let open = skipSpace(from: equals + 1)
            guard open < bytes.count, bytes[open] == UInt8(ascii: "\"") || bytes[open] == UInt8(ascii: "'"),
                  let close = find([bytes[open]], from: open + 1) else {
                throw .malformed("an attribute value without quotes at byte \(open)")
            }
            guard !bytes[(open + 1)..<close].contains(UInt8(ascii: "<")) else { throw .malformed("a '<' in an attribute value at byte \(open)") }
            attributes.append(Attribute(whole: index..<(close + 1), name: attributeName, value: (open + 1)..<close))
            index = close + 1
        }
    }
}

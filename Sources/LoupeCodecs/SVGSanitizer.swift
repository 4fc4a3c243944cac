import Foundation

/// Makes an SVG document safe to serve as an image a browser may open on its own: what could
/// run code, reach outside the document or grow it while it is parsed is removed or refused,
/// and every other byte is kept as written (attribute order, white space, comments), so the
/// result is the same document, smaller.
///
/// - Removed elements, with everything inside them: `script` and `handler` (code),
///   `foreignObject` (HTML inside SVG), and HTML's `iframe`, `frame`, `frameset`, `object`,
///   `embed`, `applet`, `form`, `base`, `link` and `meta`; SMIL animations (`set`, `animate`…)
///   whose `attributeName` is an `href` or an event attribute, which would put a removed value
///   back when they run.
/// - Removed attributes: every event attribute (`on…`), `xml:base`, an `href` or `xlink:href`
///   other than a same-document reference (`#id`) or an embedded raster image
///   (`data:image/png;…`; `data:image/svg+xml` only on `image` and `feImage`, which show it
///   without its scripts; `use` takes `#id` alone), and any other attribute whose CSS `url(…)`
///   names something outside the document. Values are read the way a browser reads them:
///   character references decoded, white space and control characters dropped.
/// - Removed text: a `style` element's content that imports a style sheet or names an outside
///   `url(…)`.
/// - Removed processing instructions (`xml-stylesheet` loads a style sheet); the XML
///   declaration stays.
/// - Refused (``SVGSanitizationError/entityDeclarations``): a DOCTYPE whose internal subset
///   declares entities or attribute lists, so no entity is ever expanded (the "billion laughs")
///   and no attribute is added by a default the document does not show.
/// - Refused (``SVGSanitizationError/malformed(_:)``, ``SVGSanitizationError/notSVG``):
///   markup that does not read as XML, end tags that do not match, a root other than `svg`.
///
/// imgproxy's sanitiser removes `script`, `iframe`, `form` and the event attributes, keeps
/// `http(s)` links, and expands internal entities once; this one keeps only references inside
/// the document and embedded images, and refuses entity declarations outright.
public enum SVGSanitizer {
    /// The sanitised document (the input's bytes less what is removed).
    public static func sanitize(_ data: Data) throws(SVGSanitizationError) -> Data {
        var markup = SVGMarkup([UInt8](data))
        let bytes = markup.bytes
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        output += bytes[0..<markup.position]
        var open: [Range<Int>] = []
        // The depth inside a removed element (0: copying), and inside a `style` element.
        var removedDepth = 0
        var rootState = RootState.before
        var first = true
        while let (token, range) = try markup.next() {
            defer { first = false }
            switch token {
            case .declaration:
                guard first else { throw .malformed("an XML declaration after the start") }
                output += bytes[range]
            case .processingInstruction:
                continue
            case .comment:
                if removedDepth == 0 { output += bytes[range] }
            case .doctype(let declares):
                guard rootState == .before else { throw .malformed("a DOCTYPE after the root element") }
                if declares { throw .entityDeclarations }
                output += bytes[range]
            case .cdata, .text:
                if rootState != .inside {
                    guard token == .text, range.allSatisfy({ SVGMarkup.isSpace(bytes[$0]) }) else {
                        throw .malformed("content outside the root element")
                    }
                }
                guard removedDepth == 0 else { continue }
                if let parent = open.last, markup.localName(parent) == "style", CSSReferences.hasOutside(markup.text(range)) { continue }
                output += bytes[range]
            case let .startTag(name, attributes, selfClosing):
                switch rootState {
                case .after: throw .malformed("a second root element")
                case .before:
                    guard markup.localName(name) == "svg" else { throw .notSVG }
                    rootState = .inside
                case .inside: break
                }
                if !selfClosing { open.append(name) }
                if removedDepth > 0 {
                    if !selfClosing { removedDepth += 1 }
                } else if removesElement(markup, name: name, attributes: attributes) {
                    if !selfClosing { removedDepth = 1 }
                } else {
                    var cursor = range.lowerBound
                    for attribute in attributes where removesAttribute(markup, attribute, element: name) {
                        output += bytes[cursor..<attribute.whole.lowerBound]
                        cursor = attribute.whole.upperBound
                    }
                    output += bytes[cursor..<range.upperBound]
                }
                if open.isEmpty { rootState = .after }
            case let .endTag(name):
                guard let last = open.popLast(), bytes[last] == bytes[name] else {
                    throw .malformed("an end tag '\(markup.text(name))' that closes no open element")
                }
                if removedDepth > 0 {
                    removedDepth -= 1
                } else {
                    output += bytes[range]
                }
                if open.isEmpty { rootState = .after }
            }
        }
        guard rootState != .before else { throw .notSVG }
        guard open.isEmpty else { throw .malformed("the document ends inside an element") }
        return Data(output)
    }

    private enum RootState { case before, inside, after }

    /// Elements removed with their content (lowercased local names).
    static let removedElements: Set<String> = [
        "script", "handler", "foreignobject", "iframe", "frame", "frameset", "object", "embed", "applet", "form", "base", "link", "meta",
    ]

    /// SMIL's animation elements, which can set any attribute while the document runs.
    static let animationElements: Set<String> = ["set", "animate", "animatetransform", "animatemotion", "animatecolor"]

    private static func removesElement(_ markup: SVGMarkup, name: Range<Int>, attributes: [SVGMarkup.Attribute]) -> Bool {
        let local = markup.localName(name)
        if removedElements.contains(local) { return true }
        guard animationElements.contains(local) else { return false }
        return attributes.contains { attribute in
            guard markup.localName(attribute.name) == "attributename" else { return false }
            let target = URLValue.normalized(markup.text(attribute.value)).lowercased()
            let targetLocal = target.split(separator: ":").last.map(String.init) ?? target
            return targetLocal == "href" || targetLocal.hasPrefix("on")
        }
    }

    private static func removesAttribute(_ markup: SVGMarkup, _ attribute: SVGMarkup.Attribute, element: Range<Int>) -> Bool {
        let local = markup.localName(attribute.name)
        if local.hasPrefix("on") { return true }
        if markup.text(attribute.name).lowercased() == "xml:base" { return true }
        let value = markup.text(attribute.value)
        if local == "href" { return !URLValue.isAllowedReference(value, element: markup.localName(element)) }
        return CSSReferences.hasOutside(value)
    }
}

/// Why ``SVGSanitizer`` refused a document: a source the service answers 422 for, as imgproxy
/// answers "Broken or unsupported SVG image".
public enum SVGSanitizationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The markup does not read as XML (an unterminated tag, an unquoted attribute, an end tag
    /// that closes nothing…).
    case malformed(String)
    /// The DOCTYPE declares entities or attribute lists, which are refused rather than expanded.
    case entityDeclarations
    /// The root element is not `svg`.
    case notSVG

    public var description: String {
        switch self {
        case let .malformed(reason): "broken SVG document: \(reason)"
        case .entityDeclarations: "SVG document declaring entities or attribute defaults in its DOCTYPE (refused, not expanded)"
        case .notSVG: "the document's root element is not svg"
        }
    }
}

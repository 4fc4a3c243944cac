import Foundation

/// How an SVG attribute's URL reads to a browser, and which references ``SVGSanitizer`` keeps:
/// those inside the document (`#id`) and embedded raster images.
enum URLValue {
    /// `value` as a browser resolves it: XML character references and the predefined entities
    /// decoded, then every white space and control character dropped (browsers strip them from
    /// URLs, so `java&#9;script:` is `javascript:`).
    static func normalized(_ value: String) -> String {
        var decoded = ""
        var rest = Substring(value)
        // Each step consumes at least one character.
        while let ampersand = rest.firstIndex(of: "&") {
            decoded += rest[..<ampersand]
            let afterAmpersand = rest.index(after: ampersand)
            guard let semicolon = rest[afterAmpersand...].prefix(12).firstIndex(of: ";"),
                  let character = reference(String(rest[afterAmpersand..<semicolon])) else {
                decoded.append("&")
                rest = rest[afterAmpersand...]
                continue
            }
            decoded.unicodeScalars.append(character)
            rest = rest[rest.index(after: semicolon)...]
        }
        decoded += rest
        return String(String.UnicodeScalarView(decoded.unicodeScalars.filter { $0.value > 0x20 && $0.value != 0x7F }))
    }

    /// The character an entity or character reference's name (`amp`, `#106`, `#x6A`) stands for.
    private static func reference(_ name: String) -> Unicode.Scalar? {
        switch name {
        case "amp": return "&"
        case "lt": return "<"
        case "gt": return ">"
        case "quot": return "\""
        case "apos": return "'"
        default:
            guard name.hasPrefix("#") else { return nil }
            let digits = name.dropFirst()
            let number = digits.first == "x" || digits.first == "X" ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
            return number.flatMap { Unicode.Scalar($0) }
        }
    }

    /// Whether an `href` on `element` (a lowercased local name) may stay: empty, a same-document
    /// reference, or (except on `use`, which imports what it names) an embedded raster image;
    /// an embedded SVG only where it is shown as an image.
    static func isAllowedReference(_ value: String, element: String) -> Bool {
        let url = normalized(value).lowercased()
        if url.isEmpty || url.hasPrefix("#") { return true }
        guard element != "use", url.hasPrefix("data:image/") else { return false }
        return !url.hasPrefix("data:image/svg") || element == "image" || element == "feimage"
    }
}

/// The outside references CSS can make: `url(…)` to anything but `#id` or a `data:` URL, and
/// `@import`.
enum CSSReferences {
    /// Whether `css` (an attribute's value or a `style` element's text) names something outside
    /// the document.
    static func hasOutside(_ css: String) -> Bool {
        let text = URLValue.normalized(css).lowercased()
        if text.contains("@import") { return true }
        var rest = Substring(text)
        // Each step moves past one "url(".
        while let found = rest.range(of: "url(") {
            rest = rest[found.upperBound...]
            let target = rest.drop { $0 == "\"" || $0 == "'" }
            if !(target.hasPrefix("#") || target.hasPrefix("data:")) { return true }
        }
        return false
    }
}

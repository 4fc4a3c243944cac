import LoupeCodecs
import LoupeProcessing

/// A value's text in result keys: stable across processes and releases (no hash order, no
/// type names), and unambiguous next to the key's separators.
protocol ResultKeyText {
    var resultKeyText: String { get }
}

extension Int: ResultKeyText {
    var resultKeyText: String { String(self) }
}

extension Double: ResultKeyText {
    var resultKeyText: String { "\(self)" }
}

extension Bool: ResultKeyText {
    var resultKeyText: String { self ? "1" : "0" }
}

extension String: ResultKeyText {
    /// Prefixed with its length in UTF-8 bytes, so text holding `;` or `=` cannot read as
    /// another field.
    var resultKeyText: String { "\(utf8.count):\(self)" }
}

extension Array: ResultKeyText where Element: ResultKeyText {
    /// Each element's text, `|` between them (each unambiguous on its own: strings carry their
    /// length).
    var resultKeyText: String { map(\.resultKeyText).joined(separator: "|") }
}

extension Optional: ResultKeyText where Wrapped: ResultKeyText {
    var resultKeyText: String { map(\.resultKeyText) ?? "-" }
}

extension Gravity: ResultKeyText {
    var resultKeyText: String { key }
}

extension RGBColor: ResultKeyText {
    var resultKeyText: String { hex }
}

extension ImageProcessors.BoxResize.Mode: ResultKeyText {
    var resultKeyText: String { rawValue }
}

extension ImageFormat: ResultKeyText {
    var resultKeyText: String { rawValue }
}

extension WatermarkPosition: ResultKeyText {
    var resultKeyText: String { rawValue }
}

extension Set: ResultKeyText where Element == ImageFormat {
    var resultKeyText: String { map(\.rawValue).sorted().joined(separator: ",") }
}

extension Dictionary: ResultKeyText where Key == ImageFormat, Value == Int {
    var resultKeyText: String { sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ",") }
}

import Foundation

/// How one kind of setting is read from its text (a flag's value, a `LOUPE_*` variable, or an
/// `IMGPROXY_*` variable converted to Loupe's units) and how its value is shown as a default in
/// `--help` and docs/service.md. Every error names where the text came from (`origin`: the flag
/// or the variable) on one line.
struct SettingType<Value>: Sendable {
    /// The value's placeholder in `--help` (`<n>`); `nil` for a boolean, a flag without a value.
    let valueName: String?
    /// The value of `text`, from `origin`.
    let read: @Sendable (_ text: String, _ origin: String) throws(SettingsError) -> Value
    /// The value as the setting's text, for its default; `nil` when there is nothing to show.
    let describe: @Sendable (Value) -> String?
}

extension SettingType where Value == Bool {
    /// imgproxy's spellings only (``BooleanSpelling``): a security switch never turns on by accident.
    static var boolean: SettingType {
        SettingType(valueName: nil, read: { text, origin throws(SettingsError) in
            guard let value = BooleanSpelling.value(of: text) else {
                throw SettingsError("\(origin) '\(text)' is not a boolean (\(BooleanSpelling.accepted))")
            }
            return value
        }, describe: { String($0) })
    }
}

extension SettingType where Value == Int {
    /// A whole number in `range`, scaled by `unit` (a megabyte: `1 << 20`) into the stored value.
    static func integer(in range: ClosedRange<Int>, unit: Int = 1, valueName: String = "<n>") -> SettingType {
        SettingType(valueName: valueName, read: { text, origin throws(SettingsError) in
            guard let value = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                throw SettingsError("\(origin) '\(text)' is not a whole number in \(range.lowerBound)...\(range.upperBound)")
            }
            return value * unit
        }, describe: { String($0 / unit) })
    }

    /// Megabytes, a whole number in `range`, stored in bytes.
    static func megabytes(in range: ClosedRange<Int>) -> SettingType { integer(in: range, unit: 1 << 20, valueName: "<mb>") }

    /// A number above 0 and at most `maximum`, fractions allowed, stored as a whole count of
    /// `unit` (megabytes in bytes, megapixels in pixels: imgproxy's limits convert exactly), at least 1.
    static func fraction(upTo maximum: Double, unit: Double, valueName: String) -> SettingType {
        SettingType(valueName: valueName, read: { text, origin throws(SettingsError) in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value > 0, value <= maximum else {
                throw SettingsError("\(origin) '\(text)' is not a number above 0 and at most \(Int(maximum))")
            }
            return max(1, Int((value * unit).rounded()))
        }, describe: { number(Double($0) / unit) })
    }
}

extension SettingType where Value == Duration {
    /// Whole seconds in `range`.
    static func seconds(in range: ClosedRange<Int>) -> SettingType {
        let integer = SettingType<Int>.integer(in: range, valueName: "<seconds>")
        return SettingType(valueName: integer.valueName, read: { text, origin throws(SettingsError) in
            .seconds(try integer.read(text, origin))
        }, describe: { String($0.components.seconds) })
    }
}

extension SettingType where Value == Double {
    /// A number in `range`, fractions allowed.
    static func decimal(in range: ClosedRange<Double>) -> SettingType {
        SettingType(valueName: "<number>", read: { text, origin throws(SettingsError) in
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), range.contains(value) else {
                throw SettingsError("\(origin) '\(text)' is not a number in \(number(range.lowerBound))...\(number(range.upperBound))")
            }
            return value
        }, describe: { number($0) })
    }
}

extension SettingType where Value == String {
    /// Any text but an empty one.
    static func text(_ valueName: String) -> SettingType {
        SettingType(valueName: valueName, read: { text, origin throws(SettingsError) in
            guard !text.isEmpty else { throw SettingsError("\(origin) is empty") }
            return text
        }, describe: { $0 })
    }
}

extension SettingType where Value == String? {
    /// Any text; an empty one leaves the setting unset.
    static func optionalText(_ valueName: String) -> SettingType {
        SettingType(valueName: valueName, read: { text, _ in text.isEmpty ? nil : text }, describe: { $0 })
    }

    /// Any text but an empty one, for a setting that is unset by default.
    static func nonEmptyText(_ valueName: String) -> SettingType {
        let text = SettingType<String>.text(valueName)
        return SettingType(valueName: valueName, read: { value, origin throws(SettingsError) in try text.read(value, origin) }, describe: { $0 })
    }
}

extension SettingType where Value == (value: String, origin: String)? {
    /// Any text, kept with where it came from, for settings read together whose errors name it.
    static func sourced(_ valueName: String) -> SettingType {
        SettingType(valueName: valueName, read: { text, origin in (text, origin) }, describe: { _ in nil })
    }
}

extension SettingType where Value == [String] {
    /// Comma-separated items, spaces around them trimmed, empty ones skipped; each checked by `item`.
    static func list(_ valueName: String = "<list>", item: @escaping @Sendable (_ item: String, _ origin: String) throws(SettingsError) -> Void = { _, _ in })
        -> SettingType {
        SettingType(valueName: valueName, read: { text, origin throws(SettingsError) in
            let items = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for each in items { try item(each, origin) }
            return items
        }, describe: { $0.isEmpty ? nil : $0.joined(separator: ",") })
    }
}

extension SettingType where Value == [Data] {
    /// Comma-separated hexadecimal byte strings (signing keys and salts).
    static var hexList: SettingType {
        SettingType(valueName: "<hex,...>", read: { text, origin throws(SettingsError) in
            var result: [Data] = []
            for item in try SettingType<[String]>.list().read(text, origin) {
                guard let data = hex(item), !data.isEmpty else { throw SettingsError("\(origin) '\(item)' is not hexadecimal") }
                result.append(data)
            }
            return result
        }, describe: { _ in nil })
    }

    private static func hex(_ text: String) -> Data? {
        guard text.count % 2 == 0 else { return nil }
        var data = Data(capacity: text.count / 2)
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            data.append(byte)
            index = next
        }
        return data
    }
}

/// A number as a setting's text: `50`, not `50.0`.
private func number(_ value: Double) -> String {
    value.rounded() == value && abs(value) < 1e15 ? String(Int(value)) : String(value)
}

/// A JSON object written with its keys in the order they were added: one line of `--json`
/// output reads in the order the documentation lists its fields. Only the value types the
/// output needs.
struct JSONObject: Sendable {
    /// A JSON value.
    enum Value: Sendable {
        case string(String)
        case int(Int)
        case bool(Bool)
        case strings([String])
        case object(JSONObject)
        case null
    }

    private var fields: [(key: String, value: Value)] = []

    /// Appends `key` (keys are the caller's to keep unique).
    mutating func add(_ key: String, _ value: Value) {
        fields.append((key, value))
    }

    /// The object on one line, without spaces: a JSON Lines record.
    var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        output += "{"
        for (index, field) in fields.enumerated() {
            if index > 0 { output += "," }
            Self.writeString(field.key, to: &output)
            output += ":"
            switch field.value {
            case .string(let string): Self.writeString(string, to: &output)
            case .int(let int): output += String(int)
            case .bool(let bool): output += bool ? "true" : "false"
            case .null: output += "null"
            case .object(let object): object.write(to: &output)
            case .strings(let strings):
                output += "["
                for (index, string) in strings.enumerated() {
                    if index > 0 { output += "," }
                    Self.writeString(string, to: &output)
                }
                output += "]"
            }
        }
        output += "}"
    }

    /// RFC 8259 escaping: quote, backslash and control characters; everything else as UTF-8.
    private static func writeString(_ string: String, to output: inout String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

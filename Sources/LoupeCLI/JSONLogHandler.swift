import Foundation
import Logging

/// A swift-log handler writing each record as one JSON object per line: the access log (and
/// start-up messages) in a form log collectors parse without patterns.
struct JSONLogHandler: LogHandler {
    /// Where lines go.
    private let write: @Sendable (String) -> Void
    private let label: String
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    /// A handler for `label` writing to standard error.
    init(label: String) {
        self.init(label: label) { line in FileHandle.standardError.write(Data(line.utf8)) }
    }

    /// A handler for `label` giving each line (newline included) to `write`.
    init(label: String, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.write = write
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var object: [String: Any] = [
            "time": ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: [.withInternetDateTime, .withFractionalSeconds]),
            "level": event.level.rawValue, "logger": label, "message": event.message.description,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) {
            object[key] = Self.json(value)
        }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]),
              let text = String(data: data, encoding: .utf8) else { return }
        write(text + "\n")
    }

    private static func json(_ value: Logger.MetadataValue) -> Any {
        switch value {
        case .string(let text): text
        // Numbers stay numbers in the JSON.
        case .stringConvertible(let value as Int): value
        case .stringConvertible(let value as Double): value
        case .stringConvertible(let value): value.description
        case .array(let values): values.map(json)
        case .dictionary(let values): values.mapValues(json)
        }
    }
}

import LoupeCaching
import Logging

/// A swift-log handler that keeps what it is given, for a test to read: passed to one pipeline
/// through `Configuration.logger`, never bootstrapped globally (tests run in parallel).
struct CapturingLogHandler: LogHandler {
    /// One message as logged, with its metadata rendered as strings.
    struct Entry: Sendable {
        var level: Logger.Level
        var message: String
        var metadata: [String: String]
    }

    /// Where the entries go; shared by every copy of the handler (swift-log copies handlers).
    final class Store: Sendable {
        private let entries = Locked<[Entry]>([])
        func append(_ entry: Entry) { entries.withLock { $0.append(entry) } }
        var all: [Entry] { entries.withLock { $0 } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level

    /// A logger at `level` whose messages land in `store`.
    static func logger(level: Logger.Level, store: Store) -> Logger {
        Logger(label: "loupe.test") { _ in CapturingLogHandler(store: store, logLevel: level) }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        store.append(Entry(level: event.level, message: event.message.description, metadata: merged.mapValues { "\($0)" }))
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
}

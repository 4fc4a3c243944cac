import Logging

/// Hands each record to a closure.
struct RecordingLogHandler: LogHandler {
    let label: String
    let record: @Sendable ((label: String, message: String, metadata: Logger.Metadata)) -> Void
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .info

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        record((label, event.message.description, metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}

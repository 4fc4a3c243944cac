import LoupeCaching

/// A task's events, handed to any number of consumers: each ``ImageTask/events`` access is a new
/// consumer, which first gets the task's state so far (its latest progress, its latest preview
/// while it has no result, its result and its update once they exist), then every event as it
/// happens, until the task's last event.
///
/// Memory stays bounded whoever reads or does not: the task keeps its latest progress, its
/// latest preview (until its result) and its result (at most one of each, and one update), never
/// a history; each consumer's stream holds at most ``bufferLimit`` unread events, the oldest
/// dropped first. Only progress reports and previews can be dropped that way — a result and an update are the last two events a task has — so a
/// consumer that falls behind misses intermediate progress, never the outcome.
final class ImageTaskEvents: Sendable {
    /// Unread events one consumer may hold.
    static let bufferLimit = 64

    private struct State {
        var consumers: [UInt64: AsyncStream<ImageTask.Event>.Continuation] = [:]
        var nextID: UInt64 = 0
        var latestProgress: ImageTask.Progress?
        var latestPreview: ImageTask.Preview?
        var result: Result<ImageResponse, any Error>?
        var update: ImageResponse?
        var isEnded = false
    }

    private let state = Locked(State())

    /// Consumers being fed now (those that stopped reading, and all once the task ended, are not).
    var consumerCount: Int { state.withLock { $0.consumers.count } }

    /// A new consumer's stream: the state so far, then what follows.
    func subscribe() -> AsyncStream<ImageTask.Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: ImageTask.Event.self, bufferingPolicy: .bufferingNewest(Self.bufferLimit))
        // Replayed and registered under the lock events are sent under: nothing happens between
        // the replay and the first live event, so no event is seen twice or missed.
        let id: UInt64? = state.withLock { state in
            if let progress = state.latestProgress { continuation.yield(.progress(progress)) }
            if let preview = state.latestPreview { continuation.yield(.preview(preview)) }
            if let result = state.result { continuation.yield(.finished(result)) }
            if let update = state.update { continuation.yield(.updated(update)) }
            guard !state.isEnded else { return nil }
            defer { state.nextID += 1 }
            state.consumers[state.nextID] = continuation
            return state.nextID
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Set outside the lock: ending a stream calls it, and it takes the lock.
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.consumers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Bytes arrived. Ignored once the task has its result: a report racing the end of the
    /// download must not follow the result.
    func progress(_ progress: ImageTask.Progress) {
        state.withLock { state in
            guard state.result == nil, !state.isEnded else { return }
            state.latestProgress = progress
            for consumer in state.consumers.values { consumer.yield(.progress(progress)) }
        }
    }

    /// A preview of the image. Ignored once the task has its result, which replaces it.
    func preview(_ preview: ImageTask.Preview) {
        state.withLock { state in
            guard state.result == nil, !state.isEnded else { return }
            state.latestPreview = preview
            for consumer in state.consumers.values { consumer.yield(.preview(preview)) }
        }
    }

    /// The task's result.
    func finish(_ result: Result<ImageResponse, any Error>) {
        state.withLock { state in
            guard state.result == nil, !state.isEnded else { return }
            state.result = result
            // The result replaces the preview: a consumer arriving later gets the result alone.
            state.latestPreview = nil
            for consumer in state.consumers.values { consumer.yield(.finished(result)) }
        }
    }

    /// A newer image replaced the result.
    func update(_ response: ImageResponse) {
        state.withLock { state in
            guard state.result != nil, !state.isEnded else { return }
            state.update = response
            for consumer in state.consumers.values { consumer.yield(.updated(response)) }
        }
    }

    /// The task has no more events: every consumer's stream ends after what it holds.
    func end() {
        let consumers = state.withLock { state in
            state.isEnded = true
            defer { state.consumers.removeAll() }
            return Array(state.consumers.values)
        }
        for consumer in consumers { consumer.finish() }
    }
}

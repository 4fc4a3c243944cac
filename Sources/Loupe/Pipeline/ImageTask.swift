import LoupeCaching

/// A running image request: follow its progress, change its priority, cancel it, or await its
/// response. Created by ``ImagePipeline/imageTask(with:)``; the work runs whether or not
/// anyone awaits it, until it finishes or is cancelled.
public final class ImageTask: Sendable {
    /// Bytes received so far and the total the server announced, if it did.
    public struct Progress: Sendable, Equatable {
        /// Bytes received.
        public var completed: Int
        /// The announced size, when known.
        public var total: Int?
    }

    /// What happens to a task, in order: any number of progress reports, then one completion.
    public enum Event: Sendable {
        /// More bytes arrived. A task served from a cache or joining finished work reports none.
        case progress(Progress)
        /// The task ended with a response or an error (`CancellationError` if cancelled).
        case finished(Result<ImageResponse, any Error>)
    }

    /// The request being loaded.
    public let request: ImageRequest
    /// The task's events, for one consumer. The newest 64 are kept if nobody reads them, so the
    /// completion is never lost.
    public let events: AsyncStream<Event>
    private let loadPriority: LoadPriority
    private let currentPriority: Locked<ImageRequest.Priority>
    private let task: Task<ImageResponse, any Error>

    init(request: ImageRequest, priority: LoadPriority, task: Task<ImageResponse, any Error>, events: AsyncStream<Event>) {
        self.request = request
        self.loadPriority = priority
        self.currentPriority = Locked(request.priority)
        self.task = task
        self.events = events
    }

    /// The task's priority. Changing it reorders the waiting work it shares with other tasks
    /// (whose priority is the highest of theirs and this one's).
    public var priority: ImageRequest.Priority {
        get { currentPriority.withLock { $0 } }
        set {
            currentPriority.withLock { $0 = newValue }
            loadPriority.update(to: newValue.taskPriority)
        }
    }

    /// The response, once loaded.
    ///
    /// - Throws: ``ImagePipelineError``, or `CancellationError` if the task was cancelled.
    public var response: ImageResponse {
        get async throws { try await task.value }
    }

    /// Cancels the task. Work it shares with other requests goes on for them.
    public func cancel() {
        task.cancel()
    }

    /// Whether ``cancel()`` was called.
    public var isCancelled: Bool { task.isCancelled }
}

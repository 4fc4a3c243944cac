import LoupeCaching
import LoupeCodecs

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

    /// An image shown before the whole download has arrived: a progressive JPEG decoded from
    /// its complete scans so far (``ImageRequest/PreviewPolicy``). Never cached; the final image
    /// replaces it.
    public struct Preview: Sendable, Equatable {
        /// The image so far: at the request's thumbnail size, upright, and processed by the
        /// request's processors when ``isProcessed``.
        public var container: ImageContainer
        /// The complete scans it shows (libjpeg's default progression writes ten for a colour image).
        public var scans: Int
        /// The bytes it was decoded from.
        public var receivedBytes: Int
        /// Whether the request's processors ran on it: they do when each of them estimates its
        /// cost (`CostEstimating`) and together they cost little beside the decode; else the
        /// preview is the decoded image alone.
        public var isProcessed: Bool

        /// The pixels.
        public var bitmap: Bitmap { container.bitmap }
    }

    /// What happens to a task, in order: any number of progress reports and previews, then one
    /// completion, then at most one update.
    public enum Event: Sendable {
        /// More bytes arrived. A task served from a cache or joining finished work reports none.
        case progress(Progress)
        /// A progressive JPEG's complete scans so far, decoded while the rest downloads (see
        /// ``ImageRequest/PreviewPolicy``); a newer preview, then the final image, replace it.
        case preview(Preview)
        /// The task ended with a response or an error (`CancellationError` if cancelled).
        case finished(Result<ImageResponse, any Error>)
        /// The response was a stale cached copy (``ImageResponse/staleness``) and the server has
        /// since sent new bytes: this is the image decoded from them. Not sent when the server
        /// confirmed the copy (`304 Not Modified`) or could not be reached.
        case updated(ImageResponse)
    }

    /// The request being loaded.
    public let request: ImageRequest
    let eventHub: ImageTaskEvents
    private let loadPriority: LoadPriority
    private let currentPriority: Locked<ImageRequest.Priority>
    private let task: Task<ImageResponse, any Error>

    init(request: ImageRequest, priority: LoadPriority, task: Task<ImageResponse, any Error>, events: ImageTaskEvents) {
        self.request = request
        self.loadPriority = priority
        self.currentPriority = Locked(request.priority)
        self.task = task
        self.eventHub = events
    }

    /// The task's events, for any number of consumers: each access is a new stream, which
    /// starts with the task's state so far — its latest progress and, before its result, its
    /// latest preview, then its result and its update if it has them (so a consumer arriving after the end still gets the result) — and goes on
    /// with every event until the task's last.
    ///
    /// Memory is bounded: the task keeps its latest progress, its latest preview until its
    /// result, its result and its update, no history; a stream nobody reads holds its newest 64
    /// events, dropping the oldest progress reports and previews first (the result and the update are always the last events, so never dropped).
    ///
    /// ```swift
    /// let task = pipeline.imageTask(with: request)
    /// for consumer in [progressBar, thumbnailView] {
    ///     let events = task.events
    ///     Task { for await event in events { consumer.show(event) } }
    /// }
    /// ```
    public var events: AsyncStream<Event> { eventHub.subscribe() }

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

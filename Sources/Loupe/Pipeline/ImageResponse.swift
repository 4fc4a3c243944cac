import Foundation
import LoupeCodecs

/// The answer to an ``ImageRequest``: the image, where it came from and how long it took.
public struct ImageResponse: Sendable {
    /// The image and its source metadata.
    public var container: ImageContainer
    /// The request this answers.
    public var request: ImageRequest
    /// Where the image came from. For requests that joined a load already running, the origin
    /// of that load.
    public var origin: ImageOrigin
    /// Whether the data was confirmed by the server with a `304 Not Modified` on this load.
    public var isRevalidated: Bool
    /// How long the stages took.
    public var timings: ImageTimings
    /// The encoded source the image was decoded from, when this response's load decoded it:
    /// for what needs the original rather than the thumbnail (its exact size in bytes, colours
    /// of the full-size pixels, a copy on disk). `nil` for memory hits — the memory cache holds
    /// pixels only, so it never pays twice for an image.
    public var data: Data?
    /// Set when the image comes from a stale disk copy answered without the server's
    /// confirmation (``ImageRequest/staleWhileRevalidate``, ``ImageRequest/staleIfError``): how
    /// stale it is and why it was answered. `nil` for anything fresh or confirmed.
    public var staleness: Staleness?
    /// The background revalidation of the stale copy this answers, if one runs.
    var revalidation: BackgroundRevalidations.Revalidation?

    /// The pixels (shorthand for `container.bitmap`).
    public var bitmap: Bitmap { container.bitmap }
}

extension ImageResponse {
    /// How stale an answered disk copy is, and why it was answered.
    public struct Staleness: Sendable {
        /// Seconds since the copy was downloaded (a `304` confirming it does not reset this).
        public var age: TimeInterval
        /// Seconds since the copy stopped being fresh.
        public var timePastExpiry: TimeInterval
        /// Why the copy was answered.
        public var reason: Reason

        /// Why a stale copy was answered.
        public enum Reason: Sendable {
            /// Stale-while-revalidate: it is being revalidated in the background; an
            /// ``ImageTask`` sends ``ImageTask/Event/updated(_:)`` if the server has new bytes.
            case revalidating
            /// Stale-if-error: asking the server failed with this error.
            case refreshFailed(ImagePipelineError)
        }
    }
}

/// How long a response's stages took. Stages that did not run (a memory hit has none) are `nil`;
/// for a request that joined a running load they are that load's.
public struct ImageTimings: Sendable, Equatable {
    /// From the call to the response; zero for a memory hit, which is not timed (it takes well
    /// under a microsecond, and reading the clock would be a fifth of that).
    public var total: Duration
    /// Loading the data (from disk, network or file); a download from the moment it had its
    /// network slot, so waiting for the slot (or for memory) counts in `total` only, as waiting
    /// for a worker does.
    public var dataLoad: Duration?
    /// Decoding (including downscaling to the thumbnail size).
    public var decode: Duration?
    /// Running the processors.
    public var processing: Duration?

    /// Timings with only the given stages set.
    ///
    /// - Parameters:
    ///   - total: from the call to the response; zero (the default) for a memory hit, which is not timed.
    ///   - dataLoad: loading the data, from disk, network or file; `nil` (the default) when it did not run.
    ///   - decode: decoding, including downscaling to the thumbnail size; `nil` (the default) when it did
    ///     not run.
    ///   - processing: running the processors; `nil` (the default) when they did not run.
    public init(total: Duration = .zero, dataLoad: Duration? = nil, decode: Duration? = nil, processing: Duration? = nil) {
        self.total = total
        self.dataLoad = dataLoad
        self.decode = decode
        self.processing = processing
    }
}


/// Why the pipeline could not produce an image. Cancellation is not an error of the pipeline:
/// a cancelled request throws `CancellationError`.
public enum ImagePipelineError: Error, CustomStringConvertible {
    /// The data could not be loaded: bad URL, network, HTTP status, size cap, timeout (the
    /// underlying error is usually a `DataLoadingError`).
    case dataLoadingFailed(any Error)
    /// ``ImageRequest/CachePolicy/returnCacheDataDontLoad`` and neither cache holds the image.
    case notCached
    /// The data is not an image the decoder can read, or exceeds the decoding limits (the
    /// underlying error is usually an `ImageCodecError`). Such data is never cached.
    case decodingFailed(any Error)
    /// A processor failed; `processor` is its identifier.
    case processingFailed(processor: String, any Error)
    /// The configuration's ``ImagePipeline/Configuration/requestModifier`` threw (the
    /// underlying error is what it threw): nothing was sent, nothing is cached. Classified by
    /// what it wraps, ``ImageFailure/Reason/other`` for an error of the app's own.
    case requestModifierFailed(any Error)

    /// The class of failure, in the pipeline's one vocabulary (``ImageFailure/Reason``): what
    /// statistics and metrics count, what `loupe fetch` and the service map to their kinds and
    /// HTTP statuses.
    public var reason: ImageFailure.Reason { ImageFailure(self).reason }

    public var description: String {
        switch self {
        case .dataLoadingFailed(let error): "loading the data failed: \(error)"
        case .notCached: "the image is not cached and the request does not allow loading it"
        case .decodingFailed(let error): "decoding failed: \(error)"
        case .processingFailed(let processor, let error): "processor \(processor) failed: \(error)"
        case .requestModifierFailed(let error): "the request modifier failed: \(error)"
        }
    }
}

extension ImagePipelineError {
    /// Whether loading failed on the way to the server or at the server — no connection, a broken
    /// answer, a timeout, a `5xx` — rather than by the server's decision about the resource (a
    /// `404`, a `403`) or anything after loading: the failures a stale copy may stand in for
    /// (``ImageRequest/staleIfError``; RFC 5861's "error").
    var isNetworkFailure: Bool {
        guard case .dataLoadingFailed = self else { return false }
        let failure = ImageFailure(self)
        switch failure.reason {
        case .network, .timeout: return true
        case .httpStatus: return (failure.httpStatus ?? 0) >= 500
        default: return false
        }
    }
}

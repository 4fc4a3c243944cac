import LoupeCaching
import LoupeCodecs
import LoupeLoading
import LoupeProcessing

/// Why the pipeline could not produce an image. Cancellation is not an error of the pipeline:
/// a cancelled request throws `CancellationError`.
public enum ImagePipelineError: Error, CustomStringConvertible {
    /// The data could not be loaded: bad URL, network, HTTP status, size cap, timeout (the
    /// underlying error is usually a ``DataLoadingError``).
    case dataLoadingFailed(any Error)
    /// ``ImageRequest/CachePolicy/returnCacheDataDontLoad`` and neither cache holds the image.
    case notCached
    /// The data is not an image the decoder can read, or exceeds the decoding limits (the
    /// underlying error is usually an ``ImageCodecError``). Such data is never cached.
    case decodingFailed(any Error)
    /// A processor failed; `processor` is its identifier.
    case processingFailed(processor: String, any Error)

    /// A short, stable name of the failure's kind, for statistics and metrics.
    public var kind: String {
        switch self {
        case .dataLoadingFailed(let error):
            switch error as? DataLoadingError {
            case .invalidURL, .unsupportedScheme: "invalidURL"
            case .httpStatus: "httpStatus"
            case .tooLarge: "tooLarge"
            case .timedOut: "timeout"
            case .tooManyRedirects: "redirects"
            case .network, .invalidResponse: "network"
            case .file: "file"
            case .forbiddenAddress: "forbiddenAddress"
            case nil: "dataLoading"
            }
        case .notCached: "notCached"
        case .decodingFailed(let error):
            switch error as? ImageCodecError {
            case .pixelLimitExceeded, .frameLimitExceeded, .totalPixelLimitExceeded: "limitExceeded"
            case .unrecognizedFormat, .libraryUnavailable: "unsupportedFormat"
            default: "decoding"
            }
        case .processingFailed: "processing"
        }
    }

    public var description: String {
        switch self {
        case .dataLoadingFailed(let error): "loading the data failed: \(error)"
        case .notCached: "the image is not cached and the request does not allow loading it"
        case .decodingFailed(let error): "decoding failed: \(error)"
        case .processingFailed(let processor, let error): "processor \(processor) failed: \(error)"
        }
    }
}

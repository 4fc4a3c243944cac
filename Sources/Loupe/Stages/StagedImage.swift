import Foundation

/// What a stage hands to the next: the image so far, where its data came from, and the stage
/// timings so far.
struct StagedImage: Sendable {
    var container: ImageContainer
    var origin: ImageOrigin
    var isRevalidated: Bool
    var timings: ImageTimings
    /// The encoded source the image was decoded from on this load; `nil` once it is in the
    /// memory cache (which holds pixels only) or when it was decoded from a processed copy.
    var data: Data?
    /// The decoded pixels' share of the pipeline's memory budget, held while these pixels are
    /// the image (released once processing replaces them, or the last holder lets go); `nil`
    /// without a budget and in the memory cache.
    var reservation: MemoryReservation?
    /// The first processor's plan for this source (``SourceScaledProcessing/SourcePlan``),
    /// made from the header when the decode stage decoded for it, so the processor does not
    /// plan again; `nil` otherwise.
    var sourcePlan: (any Sendable)?
    /// Set when the data was a stale disk copy answered as is: such an image is neither kept in
    /// memory nor stored processed, so the next request asks again.
    var stale: StaleAnswer?
}

/// What the data stage produces.
struct FetchedData: Sendable {
    var data: Data
    var origin: ImageOrigin
    var isRevalidated: Bool
    var duration: Duration
    /// The data's share of the pipeline's memory budget, released when the last stage holding
    /// the data lets go of it (after its decodes); `nil` without a budget or for data read from
    /// a file or the disk cache.
    var reservation: MemoryReservation?
    /// Set when the data is a stale disk copy answered as is.
    var stale: StaleAnswer?
}

/// A stale disk copy answered as is: what the response says about it, and the revalidation
/// running for it in the background (stale-while-revalidate; `nil` when its refresh failed).
struct StaleAnswer: Sendable {
    var staleness: ImageResponse.Staleness
    var revalidation: BackgroundRevalidations.Revalidation?
}

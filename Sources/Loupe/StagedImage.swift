import Foundation

/// What a stage hands to the next: the image so far, where its data came from, and the stage
/// timings so far.
struct StagedImage: Sendable {
    var container: ImageContainer
    var origin: ImageOrigin
    var isRevalidated: Bool
    var timings: ImageTimings
}

/// What the data stage produces.
struct FetchedData: Sendable {
    var data: Data
    var origin: ImageOrigin
    var isRevalidated: Bool
    var duration: Duration
}

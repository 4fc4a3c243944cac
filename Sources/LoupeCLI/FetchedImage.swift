import Foundation
import Loupe

/// What `loupe fetch` learned and made for one source that succeeded: the image's
/// ``ImageInfo`` (with `--colors` and `--placeholder`, its colours and placeholder) and the
/// fetch's own facts.
struct FetchedImage: Sendable, Equatable {
    /// The source and the pixels produced (the thumbnail, or the full size without one).
    var info: ImageInfo
    /// Where the data came from.
    var origin: ImageOrigin
    /// From the start of this source's work to its end.
    var duration: Duration
    /// With `--out`: the file written.
    var path: String?
}

import Foundation
import LoupeLoading

extension ImageRequest {
    /// Where a request's data comes from. Whatever the source, the data goes through the same
    /// stages: decoded, processed, kept in the memory cache, coalesced by its identity. An
    /// identifier's entries are apart from every URL's, even when the identifier spells a URL.
    public enum Source: Sendable {
        /// Loaded from a URL: `http(s)` through the disk cache and the network (its method,
        /// headers and timeout sent with every load), `file` and `data` URLs read locally.
        case url(DataRequest)
        /// An encoded image the caller holds, under an identifier. Not written to the disk
        /// cache: the caller has it already.
        case data(id: String, Data)
        /// An encoded image an async closure makes, under an identifier: called once for the
        /// requests in flight with one identifier. Its bytes are not written to the disk cache
        /// (no HTTP freshness says how long they hold); processed images are, with
        /// ``ImagePipeline/DataCachePolicy/storeAll``.
        case provider(id: String, @Sendable () async throws -> Data)
    }
}

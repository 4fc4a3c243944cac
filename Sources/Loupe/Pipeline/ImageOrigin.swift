/// Where a response's image came from.
public enum ImageOrigin: String, Sendable, Hashable, CaseIterable {
    /// The memory cache: nothing was loaded, decoded or processed.
    case memory
    /// The disk cache: decoded from stored data, without a download (a `304 Not Modified`
    /// revalidation counts as disk: the server sent no body).
    case disk
    /// Downloaded over HTTP(S).
    case network
    /// Read from a local `file` URL or a `data` URL.
    case file
    /// Bytes the request carried or its provider made (``ImageRequest/Source/data(id:_:)``,
    /// ``ImageRequest/Source/provider(id:_:)``).
    case provided
}

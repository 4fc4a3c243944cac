/// The checks an HTTP loader applies to every load.
public struct HTTPLoadingLimits: Sendable, Equatable {
    /// The largest body accepted, in bytes. A larger Content-Length is refused before the body is
    /// read; a body without one is cut off as soon as it crosses the limit.
    public var maximumBodySize: Int
    /// How long establishing a connection may take.
    public var connectTimeout: Duration
    /// How long the whole load, body included, may take.
    public var totalTimeout: Duration
    /// How many redirects are followed; cycles are refused whatever the count.
    public var maximumRedirects: Int

    /// Limits; the defaults suit images: 50 MB, 10 s to connect, 60 s in all, 5 redirects.
    public init(
        maximumBodySize: Int = 50 * 1024 * 1024,
        connectTimeout: Duration = .seconds(10),
        totalTimeout: Duration = .seconds(60),
        maximumRedirects: Int = 5
    ) {
        self.maximumBodySize = maximumBodySize
        self.connectTimeout = connectTimeout
        self.totalTimeout = totalTimeout
        self.maximumRedirects = maximumRedirects
    }
}

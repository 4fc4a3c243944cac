/// A load of a ``SingleFlightLoader`` failed: says for which key, and carries the load's own error.
///
/// Every caller that waited on the failed load receives the same `LoadError`. Cancellation of a
/// caller is not a failure of the load: that caller gets `CancellationError` instead.
public struct LoadError<Key: Sendable>: Error, CustomStringConvertible {
    /// The key whose load failed.
    public let key: Key
    /// The error the load closure threw.
    public let underlying: any Error

    /// Wraps the error a load threw for `key`.
    public init(key: Key, underlying: any Error) {
        self.key = key
        self.underlying = underlying
    }

    /// A one-line explanation naming the key and the cause.
    public var description: String { "loading \(key) failed: \(underlying)" }
}

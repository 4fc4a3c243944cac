import LoupeLoading

extension ImagePipeline {
    /// Changes each network load's request before it is sent: adds a bearer token, signs the
    /// URL, sets a cookie. Given the request as the pipeline built it (the image request's URL,
    /// method, headers and timeout, with any validators of a revalidation), it returns the one
    /// to send. Async, so it may fetch or refresh a token; what it throws fails the load with
    /// ``ImagePipelineError/requestModifierFailed(_:)`` and nothing is sent or cached.
    ///
    /// Called once per network load, not per image request: requests coalesced into one load
    /// share its call. The headers it adds are not part of the cache key (put headers that
    /// change the response in the image request's ``ImageRequest/source``). Not called for
    /// `file` and `data` URLs or bytes under an identifier.
    ///
    /// - Parameters:
    ///   - request: the request the pipeline would send.
    ///   - reason: why it is called: the load, or its one retry after a `401 Unauthorized`.
    /// - Returns: the request to send.
    public typealias RequestModifier = @Sendable (_ request: DataRequest, _ reason: RequestModifierReason) async throws -> DataRequest

    /// Why the ``RequestModifier`` is called.
    public enum RequestModifierReason: Sendable, Hashable {
        /// Before a network load (a download or a revalidation).
        case load
        /// Before the one retry of a load the server answered with `401 Unauthorized`: the
        /// credentials the modifier gave were refused, time to refresh them. A second 401 fails
        /// the load.
        case unauthorized
    }
}

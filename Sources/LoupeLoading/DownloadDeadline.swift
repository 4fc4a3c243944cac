/// The one deadline of a download, shared by all its attempts: ``RetryingDataLoader`` sets it
/// from its loader's ``DataLoading/downloadTimeout`` before the first attempt, and every attempt
/// (``withTotalTimeout(_:stage:_:)``) ends by it, so retries share the download's time instead
/// of each getting all of it.
package enum DownloadDeadline {
    /// The instant the current task's download must end by; `nil` outside a retrying load.
    @TaskLocal package static var current: ContinuousClock.Instant?

    /// When a load allowed `limit` of its own, started now, must end: the sooner of that and
    /// the shared deadline.
    package static func end(withLimit limit: Duration) -> ContinuousClock.Instant {
        let own = ContinuousClock.now.advanced(by: limit)
        guard let shared = current else { return own }
        return min(own, shared)
    }
}

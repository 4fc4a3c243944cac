import Foundation

/// Where a ``SingleFlightLoader``'s load, started for a caller that waits for it, runs until it
/// first suspends.
///
/// Queued, the load waits for a thread of the cooperative pool and its caller waits for the
/// load: two hops between threads per load. Inline (`Task.immediateDetached`), the caller's
/// thread runs the load's start itself, which saves them but makes the caller's thread do the
/// load's synchronous first steps (a disk cache lookup, say).
public enum LoadStart: Sendable {
    /// On a thread of its own, whoever the caller is. Prefetches always start this way.
    case queued
    /// On the caller's thread: for loaders whose callers are themselves loads (a pipeline's
    /// stages below the top), never the main actor.
    case inline
    /// On the caller's thread when the caller runs on no actor and not on the main thread (a
    /// server's request handler, a task of a task group); queued otherwise, so an app that calls
    /// from the main actor never runs a load's first steps on its main thread.
    case inlineOffActors

    /// Whether a load started now, by a caller isolated to `callerIsolation`, runs inline.
    @usableFromInline
    func startsInline(callerIsolation: (any Actor)?) -> Bool {
        switch self {
        case .queued: false
        case .inline: true
        // A detached task started with `Task.immediateDetached` from the main actor has no
        // isolation but still runs on the main thread until it suspends.
        case .inlineOffActors: callerIsolation == nil && !Thread.isMainThread
        }
    }
}

import Foundation

/// Who reads a body while it arrives: set as a task-local, it is handed the body received so far
/// after each chunk by ``AsyncHTTPClientDataLoader``, so a caller (the pipeline's progressive
/// previews) sees the bytes before the load ends, whichever loader wraps that one, without the
/// loader knowing its caller. Loaders that do not call it simply give no early bytes.
package final class BodyObserver: Sendable {
    /// Called with the whole body so far (a resumed download's kept bytes included). The body is
    /// shared, not copied: an observer that keeps it makes the loader's next append copy it, so
    /// it keeps it only when it needs those bytes.
    package typealias Callback = @Sendable (_ body: Data) -> Void

    /// The observer of loads made by the current task and its children; `nil` by default.
    // A class rather than the closure itself, as with `RetryObserver`: a task-local of function
    // type crashed in `swift_task_localValuePush` in release builds here (Swift 6.3.1, Linux).
    @TaskLocal package static var current: BodyObserver?

    let callback: Callback

    /// An observer calling `callback` after each chunk of a body.
    package init(_ callback: @escaping Callback) {
        self.callback = callback
    }
}

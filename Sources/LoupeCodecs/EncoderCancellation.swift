import CLoupeCodecs
import LoupeCaching

/// The C encoders' view of the work's ``LoupeCaching/WorkCancellation``: an `lc_cancel` whose
/// callback reads the signal of the thread that runs the encode, polled by the libraries'
/// progress callbacks and between rows and frames.
enum EncoderCancellation {
    /// Runs `body` with an `lc_cancel` for this thread's current signal, or `nil` when nothing
    /// can cancel the work (the encoders then never stop early).
    static func with<T>(_ body: (UnsafePointer<lc_cancel>?) throws -> T) rethrows -> T {
        guard let signal = WorkCancellation.current else { return try body(nil) }
        // The signal outlives the call: `withExtendedLifetime` keeps it, the C side borrows it.
        return try withExtendedLifetime(signal) {
            var cancel = lc_cancel(is_cancelled: { context in
                guard let context else { return 0 }
                return Unmanaged<WorkCancellation>.fromOpaque(context).takeUnretainedValue().isCancelled ? 1 : 0
            }, context: UnsafeRawPointer(Unmanaged.passUnretained(signal).toOpaque()))
            return try withUnsafePointer(to: &cancel) { try body($0) }
        }
    }

    /// Throws ``ImageCodecError/cancelled`` for an encoder's `LC_CANCELLED`.
    static func check(_ status: Int32) throws(ImageCodecError) {
        if status == LC_CANCELLED { throw .cancelled }
    }
}

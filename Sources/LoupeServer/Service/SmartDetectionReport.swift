import LoupeCaching
import LoupeProcessing
import Logging

/// Says once, in the log, when thumbor's `smart` cannot find faces because OpenCV (through
/// libLoupeVision) or its cascade is missing: such requests are still answered, their cut
/// centred on the most detailed window instead, and the operator learns why from one warning
/// rather than from the crops.
final class SmartDetectionReport: Sendable {
    private let logger: Logger
    private let reported = Locked(false)

    init(logger: Logger) {
        self.logger = logger
    }

    /// Called after a `smart` request was made: checks the detection once per process.
    func noteSmartRequest() {
        guard !reported.withLock({ reported in defer { reported = true }; return reported }) else { return }
        if case .failure(let failure) = FocalPointDetection().availability {
            logger.warning("thumbor's smart crop falls back to edge energy", metadata: ["reason": "\(failure)"])
        }
    }
}

import Foundation
import LoupeCaching

/// `done/total`, rate and time left on one line of standard error, redrawn in place — only when
/// standard error is a terminal (never into a log file or a pipe) and never with `--quiet`.
///
/// Lines written to standard output go through ``printLine(_:)``, which takes the bar off the
/// screen first and puts it back after, so a terminal showing both never gets them mixed.
final class ProgressBar: Sendable {
    private struct State {
        var completed = 0
        var lastDrawn: ContinuousClock.Instant?
        var isShown = false
    }

    private let total: Int
    private let isEnabled: Bool
    private let start = ContinuousClock.now
    private let state = Locked(State())
    /// Redraws at most this often; the last update is always drawn.
    private static let interval: Duration = .milliseconds(100)

    init(total: Int, isEnabled: Bool) {
        self.total = total
        self.isEnabled = isEnabled && total > 0
    }

    /// Counts one finished item and redraws if it is time.
    func advance() {
        guard isEnabled else { return }
        state.withLock { state in
            state.completed += 1
            let now = ContinuousClock.now
            guard state.completed == total || state.lastDrawn.map({ $0.duration(to: now) >= Self.interval }) ?? true else { return }
            state.lastDrawn = now
            draw(&state, now: now)
        }
    }

    /// Writes `line` to standard output without mixing it with the bar.
    func printLine(_ line: String) {
        guard isEnabled else { return StandardOutput.writeLine(line) }
        state.withLock { state in
            if state.isShown { StandardError.write("\r\u{1B}[K") }
            StandardOutput.writeLine(line)
            if state.isShown { draw(&state, now: .now) }
        }
    }

    /// Takes the bar off the screen for good.
    func finish() {
        guard isEnabled else { return }
        state.withLock { state in
            if state.isShown { StandardError.write("\r\u{1B}[K") }
            state.isShown = false
        }
    }

    private func draw(_ state: inout State, now: ContinuousClock.Instant) {
        StandardError.write("\r\u{1B}[K" + Self.render(completed: state.completed, total: total, elapsed: start.duration(to: now)))
        state.isShown = true
    }

    /// The bar's text: `[#########-----------] 12/40  8.1/s  ETA 3s`.
    static func render(completed: Int, total: Int, elapsed: Duration) -> String {
        let width = 24
        let filled = total == 0 ? width : width * completed / total
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Double(completed) / seconds : 0
        var text = "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] \(completed)/\(total)"
        text += String(format: "  %.1f/s", rate)
        if rate > 0, completed < total {
            text += "  ETA \(Int((Double(total - completed) / rate).rounded(.up)))s"
        }
        return text
    }
}

import LoupeProcessing

/// thumbor's pixel filters that have no imgproxy twin (brightness, contrast, round_corner, ...),
/// as processors in the URL's order, which is the order thumbor runs them in. Two lists are
/// equal when their processors' identifiers are (an identifier names a step and all its
/// parameters), and the identifiers are the list's result-key text.
struct ThumborFilterSteps: Sendable, Equatable, ResultKeyText {
    var steps: [any ImageProcessing] = []

    static func == (lhs: ThumborFilterSteps, rhs: ThumborFilterSteps) -> Bool {
        lhs.steps.map(\.identifier) == rhs.steps.map(\.identifier)
    }

    var resultKeyText: String { steps.map(\.identifier.resultKeyText).joined(separator: ",") }
}

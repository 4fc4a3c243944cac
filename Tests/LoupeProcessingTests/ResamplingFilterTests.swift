import Testing
@testable import LoupeProcessing

/// `ResamplingFilter.weights(from:step:count:into:)` turns an angle tap by tap instead of
/// calling `sin` twice per tap; these check it still gives `weight`'s values.
@Suite struct ResamplingFilterTests {
    @Test(arguments: ResamplingFilter.allCases)
    func evenlySpacedWeightsMatchTheKernel(_ filter: ResamplingFilter) {
        var worst = 0.0
        var compared = 0
        // Windows as a resize makes them: the first offset anywhere in one source pixel before
        // the support's edge, steps from upscaling (1) to a 3.7× stretch after pre-reduction.
        for step in [1.0, 1 / 1.5, 1 / 2.0, 1 / 2.75, 1 / 3.7] {
            let taps = Int(filter.support / step * 2) + 2
            for startIndex in 0...64 {
                let first = -filter.support - step + Double(startIndex) / 64 * step
                var out = [Double](repeating: .nan, count: taps)
                out.withUnsafeMutableBufferPointer { filter.weights(from: first, step: step, count: taps, into: $0) }
                for k in 0..<taps {
                    let expected = filter.weight(first + Double(k) * step)
                    worst = max(worst, abs(out[k] - expected))
                    compared += 1
                }
            }
        }
        #expect(compared > 1_000)
        #expect(worst < 1e-12, "largest difference \(worst)")
    }

    @Test func lanczosPeakAndZeroCrossings() {
        var out = [Double](repeating: .nan, count: 7)
        out.withUnsafeMutableBufferPointer { ResamplingFilter.lanczos3.weights(from: -3, step: 1, count: 7, into: $0) }
        #expect(out[3] == 1)
        for k in [0, 1, 2, 4, 5, 6] { #expect(abs(out[k]) < 1e-15, "tap \(k): \(out[k])") }
    }
}

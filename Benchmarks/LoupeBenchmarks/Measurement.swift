import Foundation

/// Keeps a value alive and opaque to the optimizer, so a measured loop is not deleted.
@inline(never)
func blackHole<T>(_ value: T) {
    withExtendedLifetime(value) {}
}

/// The median of repeated runs of one workload, in nanoseconds per operation.
struct Measurement {
    let name: String
    let samples: [Double]
    var median: Double { Measurement.median(of: samples) }

    /// The middle value (the upper one of an even count); 0 for no values.
    static func median(of values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }
    var spread: String {
        let sorted = samples.sorted()
        return String(format: "%.1f–%.1f", sorted[0], sorted[sorted.count - 1])
    }

    /// Runs `body` (which performs `operations` operations) once to warm up, then `repeats` times.
    static func run(_ name: String, operations: Int, repeats: Int = 9, _ body: () -> Void) -> Measurement {
        body()
        let clock = ContinuousClock()
        let samples = (0..<repeats).map { _ in nanosecondsPerOperation(clock.measure(body), operations) }
        return report(Measurement(name: name, samples: samples))
    }

    /// The same for asynchronous workloads.
    static func run(_ name: String, operations: Int, repeats: Int = 9, _ body: () async throws -> Void) async rethrows -> Measurement {
        try await body()
        let clock = ContinuousClock()
        var samples: [Double] = []
        for _ in 0..<repeats {
            let start = clock.now
            try await body()
            samples.append(nanosecondsPerOperation(start.duration(to: clock.now), operations))
        }
        return report(Measurement(name: name, samples: samples))
    }

    private static func nanosecondsPerOperation(_ duration: Duration, _ operations: Int) -> Double {
        let (seconds, attoseconds) = duration.components
        return (Double(seconds) * 1e9 + Double(attoseconds) / 1e9) / Double(operations)
    }

    private static func report(_ measurement: Measurement) -> Measurement {
        let name = measurement.name.padding(toLength: 52, withPad: " ", startingAt: 0)
        print(String(format: "  %@ %9.1f ns/op  (runs %@)", name, measurement.median, measurement.spread))
        return measurement
    }
}

/// Prints how many times faster `subject` is than `reference`, with the target when there is one.
func printRatio(_ subject: Measurement, against reference: Measurement, target: Double? = nil) {
    let ratio = reference.median / subject.median
    var line = String(format: "  ratio: %@ is %.1f× faster than %@", subject.name, ratio, reference.name)
    if let target {
        line += String(format: " (target ≥ %.0f×: %@)", target, ratio >= target ? "met" : "NOT met")
    }
    print(line)
}

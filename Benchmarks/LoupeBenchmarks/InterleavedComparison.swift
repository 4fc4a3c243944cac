import Foundation

/// Variants of a workload run interleaved, run by run (A B A B), each compared with the
/// reference (the first) run next to it: the machine is shared, so neighbouring runs see the
/// same machine while runs minutes apart do not. Prints each variant's medians and, against the
/// reference, the ratio of every round's pair with its median and spread, beside the load average.
struct InterleavedComparison {
    /// One workload: `prepare` (untimed) sets up a run and returns it.
    struct Variant {
        let name: String
        let prepare: () throws -> Run
    }

    /// One prepared run: `timed` is measured; `finish` (untimed) closes what it used.
    struct Run {
        let timed: () async throws -> Void
        var finish: () -> Void = {}
    }

    /// One timed run of a variant: wall-clock and process CPU seconds, the system part of the
    /// CPU, voluntary context switches and minor page faults.
    struct Sample {
        var wall: Double
        var cpu: Double
        var system: Double
        var switches: Int
        var faults: Int
    }

    /// Rounds per comparison, after one untimed warm-up round.
    let rounds: Int
    /// Loads each run makes, for the per-load figures.
    let loadsPerRun: Int

    /// For profiling some variants alone (perf record): LOUPE_PIPELINE_ONLY=<part of a name>,
    /// several separated by `|`.
    private let only = ProcessInfo.processInfo.environment["LOUPE_PIPELINE_ONLY"].map { $0.split(separator: "|") }

    /// Runs `variants` interleaved and prints the comparison under `title`; returns each
    /// variant's samples by round (empty when LOUPE_PIPELINE_ONLY leaves none).
    func compare(_ title: String, _ variants: [Variant]) async throws -> [[Sample]] {
        let variants = variants.filter { variant in only.map { $0.contains { variant.name.contains($0) } } ?? true }
        guard !variants.isEmpty else { return [] }
        print("- \(title)")
        let loadBefore = PipelineBenchmark.loadAverage()
        var samples = [[Sample]](repeating: [], count: variants.count)
        for round in 0...rounds {
            for (index, variant) in variants.enumerated() {
                let run = try variant.prepare()
                let before = ProcessUsage.now
                let start = ContinuousClock.now
                try await run.timed()
                let elapsed = start.duration(to: .now)
                let after = ProcessUsage.now
                run.finish()
                if round > 0 {
                    samples[index].append(Sample(
                        wall: Self.seconds(elapsed), cpu: after.cpu - before.cpu, system: after.system - before.system,
                        switches: after.voluntarySwitches - before.voluntarySwitches, faults: after.minorFaults - before.minorFaults))
                }
            }
        }
        report(variants, samples, loadBefore: loadBefore)
        return samples
    }

    private func report(_ variants: [Variant], _ samples: [[Sample]], loadBefore: String) {
        let reference = samples[0]
        for (variant, runs) in zip(variants, samples) {
            let cpu = runs.map { $0.cpu / Double(loadsPerRun) * 1e6 }
            let rate = runs.map { Double(loadsPerRun) / $0.wall }
            let system = runs.map { $0.system / Double(loadsPerRun) * 1e6 }
            let switches = runs.map { Double($0.switches) / Double(loadsPerRun) }
            let faults = runs.map { Double($0.faults) / Double(loadsPerRun) }
            var line = String(format: "  %@ %6.0f µs CPU/load (%.0f–%.0f)  %6.0f loads/s (%.0f–%.0f)  system %.0f µs/load, %.1f voluntary switches/load, %.1f minor faults/load",
                              variant.name.padding(toLength: 50, withPad: " ", startingAt: 0),
                              Measurement.median(of: cpu), cpu.min() ?? 0, cpu.max() ?? 0,
                              Measurement.median(of: rate), rate.min() ?? 0, rate.max() ?? 0,
                              Measurement.median(of: system), Measurement.median(of: switches), Measurement.median(of: faults))
            if variant.name != variants[0].name {
                line += "\n      per pair vs \(variants[0].name): " + Self.pairs(runs, over: reference)
            }
            print(line)
        }
        print("  load average before: \(loadBefore), after: \(PipelineBenchmark.loadAverage())")
    }

    /// Prints `runs` against `reference` (a variant other than the comparison's first),
    /// pair by pair, under `label`.
    static func printPairs(_ label: String, _ runs: [Sample], over reference: [Sample]) {
        print("      \(label): " + pairs(runs, over: reference))
    }

    /// The median and spread of each round's CPU and wall-clock ratio of `runs` over `reference`.
    private static func pairs(_ runs: [Sample], over reference: [Sample]) -> String {
        let cpuRatios = zip(runs, reference).map { ($0.cpu / $1.cpu - 1) * 100 }
        let wallRatios = zip(runs, reference).map { ($0.wall / $1.wall - 1) * 100 }
        return String(format: "CPU %+.1f %% (pairs %+.1f … %+.1f), time %+.1f %% (%+.1f … %+.1f)",
                      Measurement.median(of: cpuRatios), cpuRatios.min() ?? 0, cpuRatios.max() ?? 0,
                      Measurement.median(of: wallRatios), wallRatios.min() ?? 0, wallRatios.max() ?? 0)
    }

    /// Prints, per pair of rounds, how many times faster `faster` ran than `slower` (wall clock).
    static func printSpeedup(_ label: String, slower: [Sample], faster: [Sample], ideal: String) {
        let speedups = zip(slower, faster).map { $0.wall / $1.wall }
        print(String(format: "  %@ per pair: %.2f× (pairs %.2f–%.2f; %@)",
                     label, Measurement.median(of: speedups), speedups.min() ?? 0, speedups.max() ?? 0, ideal))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

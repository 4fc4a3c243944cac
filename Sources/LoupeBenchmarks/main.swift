import Foundation

// Release-mode benchmarks, each measured in one run beside its reference.
//   swift run -c release LoupeBenchmarks [suite ...]      (no suite: all of them)
// One line per suite; each suite prints its own table and ratios.
let suites: [(name: String, run: () async throws -> Void)] = [
    ("memory", runMemoryBenchmarks),
    ("http", runHTTPBenchmarks),
    ("codecs", CodecBenchmark.run),
    ("formats", FormatsBenchmark.run),
    ("color", FormatsBenchmark.color),
    ("processing", ProcessingBenchmark.run),
    ("disk", DiskCacheBenchmark.run),
    ("pipeline", PipelineBenchmark.run),
    ("lists", ListsBenchmark.run),
    // The two halves of "pipeline" alone, for profiling.
    ("pipeline-hit", PipelineBenchmark.memoryHit),
    ("pipeline-cold", PipelineBenchmark.coldLoads),
]

let requested = Set(CommandLine.arguments.dropFirst())
let unknown = requested.subtracting(suites.map(\.name))
if !unknown.isEmpty {
    print("unknown suite(s): \(unknown.sorted().joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))")
    exit(2)
}
for suite in suites where requested.isEmpty || requested.contains(suite.name) {
    print("== \(suite.name)")
    try await suite.run()
}

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
    ("disk-stores", DiskStoreComparison.run),
    ("pipeline", PipelineBenchmark.run),
    ("lists", ListsBenchmark.run),
    ("previews", PreviewsBenchmark.run),
    // The two halves of "pipeline" alone, for profiling.
    ("pipeline-hit", PipelineBenchmark.memoryHit),
    ("pipeline-cold", PipelineBenchmark.coldLoads),
    // The thumbnail path with the network taken out: the pipeline's plumbing alone.
    ("pipeline-plumbing", PipelinePlumbing.run),
    // Instructions per thumbnail load under callgrind (not part of "all": it takes minutes).
    ("pipeline-instructions", PipelineInstructions.run),
]
/// Run by "pipeline-instructions" under callgrind, never on its own.
let probe = "pipeline-probe"

let requested = Set(CommandLine.arguments.dropFirst())
if requested == [probe] {
    // Synchronous, before any await: no thread may start under valgrind.
    try PipelineInstructions.probe()
    exit(0)
}

let unknown = requested.subtracting(suites.map(\.name))
if !unknown.isEmpty {
    print("unknown suite(s): \(unknown.sorted().joined(separator: ", ")); known: \(suites.map(\.name).joined(separator: ", "))")
    exit(2)
}
for suite in suites where requested.isEmpty ? suite.name != "pipeline-instructions" : requested.contains(suite.name) {
    print("== \(suite.name)")
    try await suite.run()
}

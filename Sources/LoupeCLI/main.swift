import Foundation
import LoupeCaching

// `loupe` grows into the fetch / demo tool as the pipeline lands. Until then it shows the layer
// that exists: ten concurrent callers for one key share one load, and repeats come from memory.

let version = "0.1.0"
let arguments = Array(CommandLine.arguments.dropFirst())

switch arguments {
case ["--version"]:
    print("loupe \(version)")
case []:
    try await demonstrateCachingCore()
default:
    FileHandle.standardError.write(Data("loupe: unknown arguments \(arguments.joined(separator: " ")); usage: loupe [--version]\n".utf8))
    exit(2)
}

func demonstrateCachingCore() async throws {
    print("loupe \(version) — the caching core (image commands arrive with the pipeline)")
    let loads = Counter()
    let loader = SingleFlightLoader<String, String> { key in
        loads.increment()
        try await Task.sleep(for: .milliseconds(50)) // a slow download
        return "contents of \(key)"
    }
    let key = "menu/burger.png"
    let clock = ContinuousClock()
    let start = clock.now
    let results = try await withThrowingTaskGroup(of: String.self) { group in
        for _ in 0..<10 { group.addTask { try await loader.value(for: key) } }
        return try await group.reduce(into: [String]()) { $0.append($1) }
    }
    let elapsed = start.duration(to: clock.now)
    print("10 concurrent callers for \(key): \(loads.value) load, \(results.count) results in \(elapsed.formatted(.units(allowed: [.milliseconds])))")
    _ = try await loader.value(for: key)
    print("an 11th caller: served from memory, loads still \(loads.value)")
}

/// Counts loads across the concurrent callers.
final class Counter: Sendable {
    private let count = Locked(0)
    func increment() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

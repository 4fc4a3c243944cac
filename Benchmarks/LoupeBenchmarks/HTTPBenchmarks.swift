import Foundation
import LoupeLoading
import LoupeTestSupport
import LoupeURLSessionLoading

/// AsyncHTTPClient against URLSession on loopback nginx: requests per second and the client's
/// CPU time per request, at concurrency 1 and 32. Decides the default HTTP loader.
func runHTTPBenchmarks() async throws {
    let server = try NginxServer.start(files: ["image.bin": Data(repeating: 0xAB, count: 100_000)])
    defer { server.stop() }
    let request = DataRequest(url: server.url("image.bin"))
    print("-- HTTP loaders, 100 KB body from nginx on loopback, medians of 5 runs")

    let loaders: [(name: String, loader: any DataLoading)] = [
        ("AsyncHTTPClient", AsyncHTTPClientDataLoader()),
        ("URLSession", URLSessionDataLoader()),
    ]
    for concurrency in [1, 32] {
        let requests = concurrency == 1 ? 1_000 : 4_000
        var results: [(name: String, throughput: Double, cpu: Double)] = []
        for (name, loader) in loaders {
            _ = try await load(request, with: loader, count: 64, concurrency: concurrency) // warm the pool
            var throughputs: [Double] = []
            var cpuPerRequest: [Double] = []
            for _ in 0..<5 {
                let cpuBefore = processCPUSeconds()
                let start = ContinuousClock.now
                try await load(request, with: loader, count: requests, concurrency: concurrency)
                let wall = start.duration(to: .now)
                let seconds = Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
                throughputs.append(Double(requests) / seconds)
                cpuPerRequest.append((processCPUSeconds() - cpuBefore) / Double(requests) * 1e6)
            }
            let throughput = Measurement.median(of: throughputs)
            let cpu = Measurement.median(of: cpuPerRequest)
            results.append((name, throughput, cpu))
            print(String(format: "  %@ concurrency %2d: %7.0f req/s  %6.1f µs CPU/request  (req/s runs %.0f–%.0f)",
                         name.padding(toLength: 16, withPad: " ", startingAt: 0), concurrency, throughput, cpu, throughputs.min() ?? 0, throughputs.max() ?? 0))
        }
        if results.count == 2 {
            print(String(format: "  ratio at concurrency %d: %@ %.1f× the requests/s of %@, %.2f× its CPU per request",
                         concurrency, results[0].name, results[0].throughput / results[1].throughput, results[1].name,
                         results[0].cpu / results[1].cpu))
        }
    }
}

/// Loads `request` `count` times with `concurrency` workers, checking every body.
@discardableResult
private func load(_ request: DataRequest, with loader: any DataLoading, count: Int, concurrency: Int) async throws -> Int {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for worker in 0..<concurrency {
            let share = count / concurrency + (worker < count % concurrency ? 1 : 0)
            group.addTask {
                var bytes = 0
                for _ in 0..<share {
                    let response = try await loader.loadData(for: request)
                    guard response.data.count == 100_000 else { throw FixtureError("short body: \(response.data.count)") }
                    bytes += response.data.count
                }
                return bytes
            }
        }
        return try await group.reduce(0, +)
    }
}

/// User + system CPU time of this process so far.
func processCPUSeconds() -> Double {
    ProcessUsage.now.cpu
}

/// What this process (all its threads) has used so far, from `getrusage`.
struct ProcessUsage {
    var user: Double
    var system: Double
    /// Times a thread gave up its core to wait (a hand-off to another thread is one or two).
    var voluntarySwitches: Int
    /// Page faults served without I/O: memory the allocator got from the kernel afresh.
    var minorFaults: Int

    var cpu: Double { user + system }

    static var now: ProcessUsage {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return ProcessUsage(
            user: Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6,
            system: Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6,
            voluntarySwitches: usage.ru_nvcsw, minorFaults: usage.ru_minflt)
    }
}

import Foundation

/// Watches the process's memory pressure where Linux reports it — the cgroup v2 files of the
/// process's group: `memory.events` (its `high`, `max` and `oom` counts grow when the group hits
/// its limits) and `memory.pressure` (PSI: the share of time tasks waited for memory) — and calls
/// its handler when pressure rises, so a cache can give memory back before the kernel reclaims
/// it or kills the process.
///
/// It polls at a bounded rate (a task that sleeps `interval` between two reads of two small
/// files), stops when ``stop()`` is called or it is released, and does not start where the
/// files are absent (another system, cgroup v1, or a container without them).
///
/// Generic: it reports pressure and knows nothing of what is trimmed.
public final class MemoryPressureMonitor: Sendable {
    /// Between two reads of the files; at least ``minimumInterval``.
    public let interval: Duration
    /// The share of the last ten seconds (in percent, 0...100) that some task waited for memory
    /// (PSI's `some avg10`) from which the handler is called.
    public let stallThreshold: Double
    /// The folder read: the process's cgroup.
    public let directory: URL
    private let task: Task<Void, Never>

    /// The shortest interval between polls: pressure is a slow signal, and reading it more
    /// often would only cost CPU.
    public static let minimumInterval = Duration.milliseconds(10)

    /// Starts watching, or returns `nil` where the process's cgroup v2 memory files are absent.
    ///
    /// - Parameters:
    ///   - directory: the cgroup folder to read; `nil` for the process's own (from `/proc/self/cgroup`).
    ///   - interval: between two reads (at least ``minimumInterval``).
    ///   - stallThreshold: the PSI `some avg10` percentage counted as pressure.
    ///   - onPressure: called (on no particular thread) after each poll that finds a new `high`, `max` or
    ///     `oom` event, or the stall share at or above `stallThreshold`: every poll while a stall lasts.
    public init?(directory: URL? = nil, interval: Duration = .seconds(1), stallThreshold: Double = 10,
                 onPressure: @escaping @Sendable () -> Void) {
        guard let directory = directory ?? Self.ownCgroupDirectory() else { return nil }
        let events = directory.appendingPathComponent("memory.events")
        let pressure = directory.appendingPathComponent("memory.pressure")
        guard FileManager.default.isReadableFile(atPath: events.path) || FileManager.default.isReadableFile(atPath: pressure.path)
        else { return nil }
        let interval = max(interval, Self.minimumInterval)
        self.interval = interval
        self.stallThreshold = stallThreshold
        self.directory = directory
        // The count to compare with is read now, not when the task first runs: pressure that
        // comes between the two is then seen.
        let baseline = Self.limitEvents(in: events)
        task = Task.detached(priority: .utility) {
            var last = baseline
            // Ends when cancelled (stop, or the monitor released): the sleep throws then.
            while (try? await Task.sleep(for: interval)) != nil {
                let now = Self.limitEvents(in: events)
                let stalled = Self.stallShare(in: pressure).map { $0 >= stallThreshold } ?? false
                if now > last || stalled { onPressure() }
                last = now
            }
        }
    }

    deinit { task.cancel() }

    /// Stops watching.
    public func stop() { task.cancel() }

    /// The cgroup v2 folder of this process: `/sys/fs/cgroup` and the path of the `0::` line of
    /// `/proc/self/cgroup`; `nil` without one.
    static func ownCgroupDirectory() -> URL? {
        guard let text = try? String(contentsOfFile: "/proc/self/cgroup", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("0::") })
        else { return nil }
        let path = line.dropFirst(3)
        // A path from the kernel, but checked: it must stay under the cgroup mount.
        guard path.hasPrefix("/"), !path.split(separator: "/").contains("..") else { return nil }
        return URL(fileURLWithPath: "/sys/fs/cgroup" + path, isDirectory: true)
    }

    /// The sum of `memory.events`' `high`, `max` and `oom` counts; 0 when unreadable.
    static func limitEvents(in file: URL) -> Int {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return 0 }
        var sum = 0
        for line in text.split(separator: "\n").prefix(64) {
            let fields = line.split(separator: " ")
            guard fields.count == 2, ["high", "max", "oom"].contains(fields[0]), let count = Int(fields[1]), count >= 0 else { continue }
            sum = sum.addingReportingOverflow(count).partialValue
        }
        return sum
    }

    /// PSI's `some avg10` in `memory.pressure`, or `nil` when unreadable.
    static func stallShare(in file: URL) -> Double? {
        guard let text = try? String(contentsOf: file, encoding: .utf8),
              let some = text.split(separator: "\n").first(where: { $0.hasPrefix("some ") })
        else { return nil }
        for field in some.split(separator: " ") where field.hasPrefix("avg10=") {
            return Double(field.dropFirst("avg10=".count))
        }
        return nil
    }
}

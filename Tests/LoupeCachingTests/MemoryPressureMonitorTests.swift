import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// The cgroup v2 files the memory pressure monitor reads, as the kernel writes them.
@Suite struct MemoryPressureMonitorTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder.created()
    }

    @Test func readsTheLimitEventsAndTheStallShare() throws {
        let events = folder.url.appendingPathComponent("memory.events")
        try Data("low 4\nhigh 2\nmax 1\noom 0\noom_kill 0\n".utf8).write(to: events)
        #expect(MemoryPressureMonitor.limitEvents(in: events) == 3, "high + max + oom, not low")
        let pressure = folder.url.appendingPathComponent("memory.pressure")
        try Data("some avg10=12.50 avg60=3.00 avg300=0.50 total=123456\nfull avg10=1.00 avg60=0.00 avg300=0.00 total=42\n".utf8).write(to: pressure)
        #expect(MemoryPressureMonitor.stallShare(in: pressure) == 12.5)
        try Data("garbage\nhigh x\nmax -3\n".utf8).write(to: events)
        #expect(MemoryPressureMonitor.limitEvents(in: events) == 0)
        #expect(MemoryPressureMonitor.stallShare(in: folder.url.appendingPathComponent("absent")) == nil)
        folder.remove()
    }

    @Test func callsItsHandlerWhenTheStallShareCrossesItsThreshold() async throws {
        let pressure = folder.url.appendingPathComponent("memory.pressure")
        try Data("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n".utf8).write(to: pressure)
        let calls = Counter()
        let monitor = try #require(MemoryPressureMonitor(directory: folder.url, interval: .milliseconds(10), stallThreshold: 10) {
            calls.increment()
        })
        try Data("some avg10=25.00 avg60=5.00 avg300=1.00 total=99\n".utf8).write(to: pressure)
        #expect(await eventually(timeout: .seconds(10)) { calls.count > 0 })
        monitor.stop()
        folder.remove()
    }

    @Test func doesNotStartWithoutTheFiles() {
        #expect(MemoryPressureMonitor(directory: folder.url.appendingPathComponent("absent")) {} == nil)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Testing
@testable import LoupeCaching

/// Where a load starts: on the caller's thread when the loader says so and the caller allows it,
/// never on the main thread for an app calling from the main actor.
@Suite struct LoadStartTests {
    /// The thread running now, compared by `pthread_equal`.
    private static func currentThread() -> pthread_t { pthread_self() }

    /// Runs a load of `loader`'s kind from the calling task and reports whether its first steps
    /// ran on the caller's thread.
    private static func startsOnCallersThread(_ loadStart: LoadStart) async throws -> Bool {
        let loadThread = Locked<pthread_t?>(nil)
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: loadStart) { key, _ in
            loadThread.withLock { $0 = currentThread() }
            return key
        }
        // No suspension between reading the thread and the load's start: the same thread if inline.
        let caller = currentThread()
        #expect(try await loader.value(for: 7) == 7)
        let ran = try #require(loadThread.withLock { $0 })
        return pthread_equal(ran, caller) != 0
    }

    @Test func inlineLoadsStartOnTheCallersThread() async throws {
        #expect(try await Self.startsOnCallersThread(.inline))
    }

    @Test func inlineOffActorsStartsOnACallersThreadOffEveryActor() async throws {
        // A test function is nonisolated: its task runs on the cooperative pool, as a request handler's does.
        #expect(try await Self.startsOnCallersThread(.inlineOffActors))
    }

    @MainActor
    @Test func inlineOffActorsNeverRunsALoadOnTheMainThread() async throws {
        let onMainThread = Locked<Bool?>(nil)
        let loader = SingleFlightLoader<Int, Int>(memoryCache: nil, loadStart: .inlineOffActors) { key, _ in
            onMainThread.withLock { $0 = Thread.isMainThread }
            return key
        }
        #expect(try await loader.value(for: 3) == 3)
        #expect(onMainThread.withLock { $0 } == false)
        // The main actor's caller is isolated: the loader queues the load, whatever the thread.
        #expect(!LoadStart.inlineOffActors.startsInline(callerIsolation: MainActor.shared))
    }
}

import LoupeTestSupport
import Testing
@testable import LoupeCaching

/// A load that asks its own loader for a shorter key (the pipeline's process stage: an image
/// after n processors from the image after n − 1).
@Suite struct SingleFlightRecursiveLoadTests {
    /// Steps applied in order; the value is the steps joined, each made from the one a step shorter.
    private static func chainLoader(loads: Locked<[[String]: Int]>, gate: Gate) -> SingleFlightLoader<[String], String> {
        SingleFlightLoader(memoryCache: nil) { loader, steps, priority in
            loads.withLock { $0[steps, default: 0] += 1 }
            guard let last = steps.last else { return "" }
            try await gate.wait()
            let input = try await loader.value(for: Array(steps.dropLast()), priority: priority)
            return input.isEmpty ? last : input + "+" + last
        }
    }

    @Test func chainsSharingAPrefixComputeItOnce() async throws {
        let loads = Locked<[[String]: Int]>([:])
        let gate = Gate()
        let loader = Self.chainLoader(loads: loads, gate: gate)
        async let first = loader.value(for: ["crop", "resize", "sharpen"])
        async let second = loader.value(for: ["crop", "resize", "blur"])
        // Both chains wait at the gate before asking for their shared prefix.
        #expect(await eventually { loader.loadsInFlight == 2 })
        gate.open()
        #expect(try await first == "crop+resize+sharpen")
        #expect(try await second == "crop+resize+blur")
        let counts = loads.withLock { $0 }
        #expect(counts[["crop", "resize"]] == 1, "\(counts)")
        #expect(counts[["crop"]] == 1, "\(counts)")
        #expect(counts[[]] == 1, "\(counts)")
        #expect(counts.values.reduce(0, +) == 5, "\(counts)")
    }

    @Test func theLoadDoesNotKeepItsLoaderAlive() async throws {
        let gate = Gate()
        gate.open()
        let released = Locked(WeakReference())
        do {
            let loader = Self.chainLoader(loads: Locked([:]), gate: gate)
            released.withLock { $0.object = loader }
            #expect(try await loader.value(for: ["a", "b"]) == "a+b")
        }
        // Nothing is in flight and no one holds the loader: it is gone (a load holding its
        // loader would keep it, and everything it holds, alive).
        #expect(await eventually { released.withLock { $0.object == nil } })
    }
}

private struct WeakReference {
    weak var object: AnyObject?
}

/// A reduced reproduction of a Swift 6.3.1 optimiser bug (Linux x86_64, `-O`), kept so that a
/// toolchain which fixes it is noticed (`KnownToolchainIssueTests`).
///
/// In generic code that is not specialised at the call site — always the case when another module
/// calls it — a child task that returns `(index, .success(try await load()))` from inside a `do`
/// block hands the group a wrong index (0 here) for a successful load of an array. With `-Onone`,
/// or when the `Result` is built first and the tuple returned after the `do`/`catch`, the index
/// is right. `SectionedLoader` had exactly this shape: in release builds every section's data
/// landed in section 0.
///
/// Its own module, so that nothing else compiled beside it changes the optimiser's decisions.
package func indicesReturnedByChildTasks<Item: Sendable>(_ loads: [@Sendable () async throws -> [Item]]) async -> [Int] {
    await withTaskGroup(of: (Int, Result<[Item], any Error>).self) { group in
        for (index, load) in loads.enumerated() {
            group.addTask {
                do {
                    return (index, .success(try await load()))
                } catch {
                    return (index, .failure(error))
                }
            }
        }
        var indices: [Int] = []
        for await (index, _) in group { indices.append(index) }
        return indices.sorted()
    }
}

/// The same work with the `Result` built before the tuple: the shape that compiles correctly.
package func indicesReturnedWithResultFirst<Item: Sendable>(_ loads: [@Sendable () async throws -> [Item]]) async -> [Int] {
    await withTaskGroup(of: (Int, Result<[Item], any Error>).self) { group in
        for (index, load) in loads.enumerated() {
            group.addTask {
                let result: Result<[Item], any Error>
                do {
                    result = .success(try await load())
                } catch {
                    result = .failure(error)
                }
                return (index, result)
            }
        }
        var indices: [Int] = []
        for await (index, _) in group { indices.append(index) }
        return indices.sorted()
    }
}

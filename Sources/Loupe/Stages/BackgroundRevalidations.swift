import LoupeCaching

/// The revalidations of stale disk copies answered at once (stale-while-revalidate), running in
/// the background: one per data key, however many requests were answered from the copy while it
/// runs — two views of one stale image make one request to the server.
final class BackgroundRevalidations: Sendable {
    /// How a revalidation ended.
    enum Outcome: Sendable, Equatable {
        /// The server sent new bytes, now in the disk cache.
        case newData
        /// The server confirmed the copy (`304 Not Modified`); its freshness is renewed.
        case notModified
        /// The server could not be asked, or refused; the copy stays as it was.
        case failed
    }

    /// One revalidation, which any number of answered requests may wait for.
    final class Revalidation: Sendable {
        let task: Task<Outcome, Never>

        init(task: Task<Outcome, Never>) {
            self.task = task
        }

        /// How it ended, once it has.
        var outcome: Outcome {
            get async { await task.value }
        }
    }

    private let running = Locked<[String: Revalidation]>([:])

    /// The revalidation of `key` running now, else a new one running `work` at `priority`.
    func revalidation(of key: String, priority: TaskPriority, work: @escaping @Sendable () async -> Outcome) -> Revalidation {
        running.withLock { byKey in
            if let current = byKey[key] { return current }
            // Detached: it belongs to no request (each was answered already) and must not be
            // cancelled with the one that started it.
            let revalidation = Revalidation(task: Task.detached(priority: priority) { [running] in
                let outcome = await work()
                _ = running.withLock { $0.removeValue(forKey: key) }
                return outcome
            })
            byKey[key] = revalidation
            return revalidation
        }
    }

    /// Revalidations running now.
    var count: Int { running.withLock { $0.count } }
}

import Foundation
import Loupe
import LoupeCaching
import LoupeOrigin

/// Step 5 of `loupe demo` (the sectioned menu): a side-dish shop's menu in three sections — main, soup,
/// side — each behind its own request, loaded with ``SectionedLoader`` and applied snapshot by
/// snapshot to a ``ListChangeValidator``, the model of a list view that rejects what UIKit would.
///
/// The sections answer out of list order (soup first, then side, which fails, then main), so a
/// snapshot that put a section's data in another section, or a change that did not match its
/// data, shows as a failed check. The sectioned menu's original bug was exactly that kind of mismatch, and a release
/// build of an earlier loader produced another (docs/known-issues.md).
struct ShopMenuDemo {
    enum Menu: String, Hashable, Sendable, CaseIterable { case main, soup, side }

    /// What each section's request returns; the side dishes' request fails (a 404).
    static let dishes: [Menu: [String]] = [
        .main: ["bibimbap", "bulgogi", "japchae"],
        .soup: ["doenjang-jjigae", "miyeok-guk"],
    ]
    /// How long each section's API takes before its images load: the order they usually settle
    /// in (on a busy machine soup's photos can take longer than side's 250 ms, so the check is
    /// against the order the requests actually answered in, `Outcome.answered`).
    static let apiTime: [Menu: Duration] = [.main: .milliseconds(500), .soup: .zero, .side: .milliseconds(250)]

    /// The demo's result: sections in the order they settled, and the violation if any.
    struct Outcome {
        var settled: [(menu: Menu, failed: Bool, after: Duration)] = []
        /// The sections' requests in the order they returned or threw.
        var answered: [Menu] = []
        var snapshots = 0
        var violation: ListChangeViolation?
        var finalCounts: [Int] = []
    }

    let pipeline: ImagePipeline
    let origin: OriginServer
    private let answered = Locked<[Menu]>([])

    init(pipeline: ImagePipeline, origin: OriginServer) {
        self.pipeline = pipeline
        self.origin = origin
    }

    func run() async -> Outcome {
        let loader = SectionedLoader<Menu, String>(Menu.allCases.map { menu in
            .init(menu, placeholderCount: 4) {
                defer { answered.withLock { $0.append(menu) } }
                return try await load(menu)
            }
        })
        var view = ListChangeValidator()
        var outcome = Outcome()
        let start = ContinuousClock.now
        for await snapshot in loader.snapshots() {
            outcome.snapshots += 1
            do {
                try view.apply(snapshot, sourceItems: Self.dishes)
            } catch {
                outcome.violation = outcome.violation ?? error
            }
            for section in snapshot.sections where section.isSettled && !outcome.settled.contains(where: { $0.menu == section.id }) {
                var failed = false
                if case .failed = section.state { failed = true }
                outcome.settled.append((section.id, failed, start.duration(to: .now)))
            }
            outcome.finalCounts = snapshot.itemCounts
        }
        outcome.answered = answered.withLock { $0 }
        return outcome
    }

    /// One section's request: its API time, then its dishes' photos through the pipeline, all at
    /// once (so the sections settle in API-time order whatever the origin's latency); the items
    /// are the dishes, in menu order.
    private func load(_ menu: Menu) async throws -> [String] {
        try await Task.sleep(for: Self.apiTime[menu] ?? .zero)
        guard let dishes = Self.dishes[menu] else {
            _ = try await pipeline.image(for: ImageRequest(url: origin.url("/shop/\(menu.rawValue).json")))
            return []
        }
        let (pipeline, origin) = (pipeline, origin)
        return try await OrderedBatch(dishes, maximumConcurrency: dishes.count) { dish in
            _ = try await pipeline.image(for: ImageRequest(url: origin.url("/shop/\(menu.rawValue)/\(dish).jpg"), thumbnail: 128))
            return dish
        }.run(failurePolicy: .failFast)
    }
}

import Foundation
import Testing
@testable import Loupe

@Suite struct ImageRequestTests {
    @Test func prioritiesAreOrderedAndMapToIncreasingTaskPriorities() {
        let all = ImageRequest.Priority.allCases
        #expect(all == all.sorted())
        let task = all.map(\.taskPriority.rawValue)
        #expect(task == task.sorted())
        #expect(Set(task).count == all.count)
    }
}

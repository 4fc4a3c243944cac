/// Polls `condition` until it holds, yielding between tries; bounded so a broken test fails
/// instead of hanging.
package func eventually(
    timeout: Duration = .seconds(60),
    _ condition: () -> Bool
) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

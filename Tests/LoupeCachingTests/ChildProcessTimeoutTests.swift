import Foundation
import Testing
import LoupeTestSupport

/// The test helper every suite starts children with: a child that outlives its bound is killed
/// and reported with what the wait still lacked, so a CI log tells a hung child from a lost exit.
@Suite struct ChildProcessTimeoutTests {
    @Test func aChildPastItsBoundIsKilledAndSaysWhatWasMissing() {
        let started = ContinuousClock.now
        let error = #expect(throws: FixtureError.self) {
            _ = try ChildProcess.runBlocking(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "echo begun >&2; exec sleep 30"], timeout: .milliseconds(500))
        }
        #expect(ContinuousClock.now - started < .seconds(10))
        let message = error?.description ?? ""
        #expect(message.contains("still waiting for its exit, the end of its output, the end of its standard error"), "\(message)")
        #expect(message.contains("standard error so far: begun"), "\(message)")
    }

    @Test func aChildThatEndsInTimeGivesItsOutput() throws {
        let outcome = try ChildProcess.runBlocking(URL(fileURLWithPath: "/bin/sh"), ["-c", "printf out; printf err >&2; exit 3"])
        #expect(outcome.status == 3)
        #expect(outcome.standardOutput == "out")
        #expect(outcome.standardError == "err")
    }
}

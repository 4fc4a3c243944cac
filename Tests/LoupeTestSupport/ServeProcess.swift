import Foundation

/// `loupe serve` (the binary built beside the test bundle) as a child process, for the tests of
/// what only the real process does: signals, the drain, start-up refusals, its log. A test
/// target that uses it depends on `LoupeCLI`, so that `loupe` is built.
///
/// ```swift
/// let serve = try ServeProcess(["--port", "0", "--allow-unsigned", "--quiet"])
/// defer { serve.kill() }
/// let port = try await serve.port()
/// serve.signal(SIGTERM)
/// #expect(try await serve.waitForExit(timeout: .seconds(30)) == 0)
/// ```
package final class ServeProcess: Sendable {
    /// The process: its output so far, waits for a line, signals.
    package let child: ChildProcess

    /// Starts `loupe serve arguments…` (`executable`: a copy of the binary elsewhere, without
    /// what is installed beside it); with `environment`, in the test's environment without
    /// its `LOUPE_*` and `IMGPROXY_*` variables, plus `environment`'s.
    package init(_ arguments: [String], environment: [String: String]? = nil, executable: URL = ChildProcess.product("loupe")) throws {
        child = try ChildProcess(executable, ["serve"] + arguments, environment: environment ?? [:],
                                 removingPrefixes: environment == nil ? [] : ["LOUPE_", "IMGPROXY_"])
    }

    /// The port from the `listening on http://host:port` line (waits up to a minute).
    package func port() async throws -> Int {
        try await child.waitForOutput(.standardOutput) { text in
            text.split(separator: "\n").first { $0.contains("listening on http://") }?.split(separator: ":").last.flatMap { Int($0) }
        }
    }

    /// Waits until standard error (the server's JSON log) holds `count` lines containing `text`.
    package func waitForLog(_ text: String, count: Int = 1, timeout: Duration = .seconds(30)) async throws {
        _ = try await child.waitForOutput(.standardError, timeout: timeout) { log in
            log.split(separator: "\n").filter { $0.contains(text) }.count >= count ? true : nil
        }
    }

    /// Sends `signal`.
    package func signal(_ signal: Int32) { child.signal(signal) }

    /// The exit status once it exits on its own (SIGKILL and a thrown error after `timeout`).
    package func waitForExit(timeout: Duration) async throws -> Int32 { try await child.waitForExitStatus(timeout: timeout) }

    /// Kills it (SIGKILL), if it still runs.
    package func kill() { child.kill() }
}

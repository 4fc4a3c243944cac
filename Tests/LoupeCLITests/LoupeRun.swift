import Foundation
import LoupeTestSupport

/// One run of the real `loupe` binary as a child process: what a user or a script sees.
struct LoupeRun: Sendable {
    let status: Int32
    let standardOutput: String
    let standardError: String

    /// Standard output's lines.
    var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }

    /// Standard output's JSON Lines, parsed; a line that is not a JSON object fails the caller.
    func objects() throws -> [[String: Any]] {
        try lines.map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw FixtureError("not a JSON object: \(line)")
            }
            return object
        }
    }

    /// Runs `loupe arguments…` with `input` on standard input, its cache under `home` (as
    /// `XDG_CACHE_HOME`); killed after `timeout`.
    static func run(
        _ arguments: [String], input: String? = nil, home: URL, timeout: Duration = .seconds(120)
    ) async throws -> LoupeRun {
        try await runTool([ChildProcess.product("loupe").path] + arguments, input: input, home: home, timeout: timeout)
    }

    /// Like ``run(_:input:home:timeout:)``, with standard output and error on a terminal: the
    /// command runs under `script`, which gives it a pseudo-terminal and copies what it shows to
    /// standard output.
    static func runOnTerminal(_ arguments: [String], home: URL) async throws -> LoupeRun {
        let command = ([ChildProcess.product("loupe").path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
            .joined(separator: " ")
        return try await runTool(["/usr/bin/script", "--quiet", "--return", "--command", command, "/dev/null"], home: home)
    }

    /// Runs another program (a reference tool) the same way, for checking what `loupe` wrote.
    static func runTool(_ command: [String], input: String? = nil, home: URL, timeout: Duration = .seconds(120)) async throws -> LoupeRun {
        let outcome = try await ChildProcess.run(URL(fileURLWithPath: command[0]), Array(command.dropFirst()),
                                                 environment: ["XDG_CACHE_HOME": home.path], input: input.map { Data($0.utf8) }, timeout: timeout)
        return LoupeRun(status: outcome.status, standardOutput: outcome.standardOutput, standardError: outcome.standardError)
    }
}

import Foundation
import LoupeTestSupport
#if canImport(Glibc)
import Glibc
#endif

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

    /// `loupe` sits beside the test bundle in the build products directory.
    static var executableURL: URL { ServerProcess.executableURL }

    /// Runs `loupe arguments…` with `input` on standard input, its cache under `home` (as
    /// `XDG_CACHE_HOME`); kills it after `timeout`. Runs on a thread of its own: waiting for a
    /// child must not hold a thread of the cooperative pool.
    static func run(
        _ arguments: [String], input: String? = nil, home: URL, timeout: Duration = .seconds(120)
    ) async throws -> LoupeRun {
        try await onOwnThread {
            try runBlocking([executableURL.path] + arguments, input: input, home: home, timeout: timeout)
        }
    }

    /// Like ``run(_:input:home:timeout:)``, with standard output and error on a terminal: the
    /// command runs under `script`, which gives it a pseudo-terminal and copies what it shows to
    /// standard output.
    static func runOnTerminal(_ arguments: [String], home: URL) async throws -> LoupeRun {
        let command = ([executableURL.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ")
        return try await onOwnThread {
            try runBlocking(["/usr/bin/script", "--quiet", "--return", "--command", command, "/dev/null"],
                            input: nil, home: home, timeout: .seconds(120))
        }
    }

    /// Runs another program (a reference tool) the same way, for checking what `loupe` wrote.
    static func runTool(_ command: [String], home: URL) async throws -> LoupeRun {
        try await onOwnThread { try runBlocking(command, input: nil, home: home, timeout: .seconds(120)) }
    }

    private static func runBlocking(_ command: [String], input: String?, home: URL, timeout: Duration) throws -> LoupeRun {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = home.path
        // Under ThreadSanitizer the child is instrumented too; its reports still fail it.
        if let options = environment["TSAN_OPTIONS"] { environment["TSAN_OPTIONS"] = options + ":symbolize=0" }
        process.environment = environment
        // Files, not pipes: nothing blocks however much the child writes while we wait.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("out"), errURL = folder.appendingPathComponent("err")
        guard FileManager.default.createFile(atPath: outURL.path, contents: nil),
              FileManager.default.createFile(atPath: errURL.path, contents: nil)
        else { throw FixtureError("cannot create output files in \(folder.path)") }
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        try? out.close()
        try? err.close()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try? stdin.fileHandleForWriting.close()
        let deadline = ContinuousClock.now + timeout
        while process.isRunning, ContinuousClock.now < deadline { usleep(5_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            throw FixtureError("loupe \(command.dropFirst().joined(separator: " ")) did not finish within \(timeout)")
        }
        process.waitUntilExit()
        return LoupeRun(
            status: process.terminationStatus,
            standardOutput: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }
}

import Foundation
import LoupeCaching
#if canImport(Glibc)
import Glibc
#endif

/// A child process for tests, the one way every test target starts one: `loupe` and the probes
/// built beside the test bundle (``product(_:)``), nginx, shell scripts, the Python references.
///
/// Its standard output and error are read as they arrive by threads of their own (a child never
/// blocks on a full pipe), kept whole, and waited on by condition: a test waits for the line it
/// needs (``waitForOutput(_:timeout:until:)``, ``nextLine(timeout:)``), never for a guessed time.
/// Every wait is bounded; a child that outlives its wait is killed (SIGKILL) and reaped, and one
/// still running when the value goes away is killed too.
///
/// ```swift
/// let serve = try ChildProcess(ChildProcess.product("loupe"), ["serve", "--port", "0"])
/// let port = try await serve.waitForOutput(.standardOutput) { ServeOutput.port(in: $0) }
/// serve.signal(SIGTERM)
/// #expect(try await serve.waitForExit(timeout: .seconds(30)) == 0)
/// ```
package final class ChildProcess: Sendable {
    /// Which of the child's output streams.
    package enum Stream: Sendable {
        case standardOutput, standardError
    }

    /// How a child ended.
    package struct Exit: Sendable, Equatable {
        /// The exit status, or the signal's number when ``signalled``.
        package var status: Int32
        /// Whether a signal ended it.
        package var signalled: Bool
    }

    /// A child run to its end: how it ended and everything it wrote.
    package struct Outcome: Sendable {
        package var exit: Exit
        package var output: Data
        package var error: Data
        /// The exit status (the signal's number when a signal ended it).
        package var status: Int32 { exit.status }
        /// Standard output as text.
        package var standardOutput: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as text.
        package var standardError: String { String(decoding: error, as: UTF8.self) }
    }

    /// What the reader threads and the exit handler share with the test, under `condition`.
    private struct State {
        var output = Data()
        var error = Data()
        var outputEnded = false
        var errorEnded = false
        var exit: Exit?
        /// How much of standard output ``nextLine(timeout:)`` has handed out.
        var linesRead = 0
    }

    /// The process id.
    package let pid: pid_t
    private let condition: ConditionLocked<State>
    private let input: FileHandle?
    /// Kept so that Foundation keeps reaping the child; touched only in `init`.
    private let process: Locked<Process>

    /// The executable `name` in the build products directory, beside the test bundle (`.build/debug`,
    /// the ThreadSanitizer and release scratch paths alike).
    package static func product(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return testBinary.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// Starts `executable` with `arguments`.
    /// - Parameters:
    ///   - environment: added to (and replacing in) the test's own environment, after the
    ///     variables whose names start with one of `removingPrefixes` are taken out.
    ///   - directory: the working directory (the test's when `nil`).
    ///   - standardInput: whether the test writes to the child's standard input
    ///     (``write(_:)``, ``closeInput()``); otherwise it reads end of file at once.
    package init(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], removingPrefixes: [String] = [],
        directory: URL? = nil, standardInput: Bool = false
    ) throws {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var variables = ProcessInfo.processInfo.environment.filter { variable in !removingPrefixes.contains { variable.key.hasPrefix($0) } }
        // Under ThreadSanitizer the child is instrumented too: its llvm-symbolizer helper prints
        // "Broken pipe" noise when the child is killed. Reports (which still fail the child
        // through the inherited halt_on_error) then show addresses instead of names.
        if let options = variables["TSAN_OPTIONS"] { variables["TSAN_OPTIONS"] = options + ":symbolize=0" }
        process.environment = variables.merging(environment) { _, given in given }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        let inputPipe = standardInput ? Pipe() : nil
        process.standardInput = inputPipe ?? FileHandle.nullDevice
        let condition = ConditionLocked(State())
        self.condition = condition
        process.terminationHandler = { ended in
            let exit = Exit(status: ended.terminationStatus, signalled: ended.terminationReason == .uncaughtSignal)
            condition.update { $0.exit = exit }
        }
        try process.run()
        pid = process.processIdentifier
        input = inputPipe?.fileHandleForWriting
        self.process = Locked(process)
        // The parent's copies of the child's ends: the readers see end of file when the child
        // (and anything it left running with them) has closed its own.
        try? output.fileHandleForWriting.close()
        try? error.fileHandleForWriting.close()
        try? inputPipe?.fileHandleForReading.close()
        Self.drain(output.fileHandleForReading, into: condition, stream: .standardOutput)
        Self.drain(error.fileHandleForReading, into: condition, stream: .standardError)
    }

    deinit {
        if condition.read({ $0.exit == nil }) { Glibc.kill(pid, SIGKILL) }
    }

    /// Runs `executable` to its end and returns what it wrote; SIGKILL after `timeout`, then a
    /// ``FixtureError``. Blocks the calling thread: from async code use
    /// ``run(_:_:environment:directory:input:timeout:)``.
    package static func runBlocking(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, input: Data? = nil,
        timeout: Duration = .seconds(120)
    ) throws -> Outcome {
        let child = try ChildProcess(executable, arguments, environment: environment, directory: directory, standardInput: input != nil)
        if let input {
            child.write(input)
            child.closeInput()
        }
        let deadline = ContinuousClock.now + timeout
        let (finished, state) = child.condition.wait(until: deadline) { $0.exit != nil && $0.outputEnded && $0.errorEnded }
        guard finished else {
            child.kill()
            // What was still missing tells a hung child from one whose exit or pipes were lost.
            let waitingFor = [state.exit == nil ? "its exit" : nil, state.outputEnded ? nil : "the end of its output",
                              state.errorEnded ? nil : "the end of its standard error"].compactMap { $0 }
            throw FixtureError("""
                \(executable.lastPathComponent) \(arguments.joined(separator: " ")) did not finish within \(timeout) \
                (still waiting for \(waitingFor.joined(separator: ", ")); \(state.output.count) bytes of output); \
                standard error so far: \(String(decoding: state.error.suffix(2_000), as: UTF8.self))
                """)
        }
        guard let exit = state.exit else { throw FixtureError("\(executable.lastPathComponent) ended without an exit status") }
        return Outcome(exit: exit, output: state.output, error: state.error)
    }

    /// ``runBlocking(_:_:environment:directory:input:timeout:)`` on a thread of its own: waiting
    /// for a child must not hold a thread of the cooperative pool.
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String] = [:], directory: URL? = nil, input: Data? = nil,
        timeout: Duration = .seconds(120)
    ) async throws -> Outcome {
        try await onOwnThread {
            try runBlocking(executable, arguments, environment: environment, directory: directory, input: input, timeout: timeout)
        }
    }

    /// Everything the child wrote to `stream` so far.
    package func text(_ stream: Stream) -> String {
        condition.read { String(decoding: stream == .standardOutput ? $0.output : $0.error, as: UTF8.self) }
    }

    /// Waits until `found` makes a value of what `stream` holds so far (called again as more
    /// arrives) and returns it; a ``FixtureError`` with what arrived when the stream ends first or
    /// `timeout` passes.
    package func waitForOutput<T: Sendable>(
        _ stream: Stream, timeout: Duration = .seconds(60), until found: @escaping @Sendable (String) -> T?
    ) async throws -> T {
        let condition = self.condition
        return try await onOwnThread {
            var value: T?
            let (_, state) = condition.wait(until: ContinuousClock.now + timeout) { state in
                let data = stream == .standardOutput ? state.output : state.error
                value = found(String(decoding: data, as: UTF8.self))
                return value != nil || (stream == .standardOutput ? state.outputEnded : state.errorEnded)
            }
            if let value { return value }
            let seen = String(decoding: stream == .standardOutput ? state.output : state.error, as: UTF8.self)
            throw FixtureError("the child's \(stream) never showed what the test waits for within \(timeout); it wrote: \(seen)")
        }
    }

    /// The next line of standard output not handed out before, or `nil` at its end or after
    /// `timeout`. Blocks the calling thread.
    package func nextLine(timeout: Duration = .seconds(30)) -> String? {
        var line: String?
        _ = condition.wait(until: ContinuousClock.now + timeout) { state in
            let rest = state.output[(state.output.startIndex + state.linesRead)...]
            if let newline = rest.firstIndex(of: 0x0A) {
                line = String(decoding: rest[..<newline], as: UTF8.self)
                state.linesRead += rest.distance(from: rest.startIndex, to: newline) + 1
                return true
            }
            return state.outputEnded
        }
        return line
    }

    /// Writes `data` to the child's standard input (started with `standardInput: true`).
    package func write(_ data: Data) {
        try? input?.write(contentsOf: data)
    }

    /// Closes the child's standard input: it reads end of file.
    package func closeInput() {
        try? input?.close()
    }

    /// Sends `signal`, unless the child has already ended.
    package func signal(_ signal: Int32) {
        if condition.read({ $0.exit == nil }) { Glibc.kill(pid, signal) }
    }

    /// How the child ended, once it has, within `timeout`; otherwise it is killed and a
    /// ``FixtureError`` says so. Blocks the calling thread.
    package func waitForExitBlocking(timeout: Duration) throws -> Exit {
        if let exit = condition.wait(until: ContinuousClock.now + timeout, for: { $0.exit != nil }).state.exit { return exit }
        kill()
        throw FixtureError("the child \(pid) did not exit within \(timeout)")
    }

    /// ``waitForExitBlocking(timeout:)`` on a thread of its own.
    package func waitForExit(timeout: Duration) async throws -> Exit {
        try await onOwnThread { [self] in try waitForExitBlocking(timeout: timeout) }
    }

    /// The exit status once the child exited on its own within `timeout`; a ``FixtureError``
    /// when a signal ended it or it was killed at `timeout`.
    package func waitForExitStatus(timeout: Duration) async throws -> Int32 {
        let exit = try await waitForExit(timeout: timeout)
        guard !exit.signalled else { throw FixtureError("the child \(pid) was ended by signal \(exit.status)") }
        return exit.status
    }

    /// How the child ended, or `nil` while it runs.
    package var exit: Exit? { condition.read { $0.exit } }

    /// Kills the child (SIGKILL) and waits until it is reaped (at most 30 s).
    package func kill() {
        guard condition.read({ $0.exit == nil }) else { return }
        Glibc.kill(pid, SIGKILL)
        _ = condition.wait(until: .now + .seconds(30)) { $0.exit != nil }
    }

    /// Reads `handle` to its end on a thread of its own, adding what arrives to `stream`.
    private static func drain(_ handle: FileHandle, into condition: ConditionLocked<State>, stream: Stream) {
        Thread {
            // Bounded by the child: each read returns what arrived, and an empty one is the end.
            while true {
                let chunk = handle.availableData
                condition.update { state in
                    switch (stream, chunk.isEmpty) {
                    case (.standardOutput, false): state.output.append(chunk)
                    case (.standardError, false): state.error.append(chunk)
                    case (.standardOutput, true): state.outputEnded = true
                    case (.standardError, true): state.errorEnded = true
                    }
                }
                if chunk.isEmpty { break }
            }
            try? handle.close()
        }.start()
    }
}

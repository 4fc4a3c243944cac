import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `loupe serve` running as a child process, its standard output read for the port it
/// listens on.
package final class ServerProcess: Sendable {
    private let process: Process
    private let output: Pipe

    /// `loupe` sits beside the test bundle in the build products directory.
    package static var executableURL: URL {
        let testBinary = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        return testBinary.deletingLastPathComponent().appendingPathComponent("loupe")
    }

    /// The child's process identifier (for reading its `/proc` entries).
    package var processIdentifier: Int32 { process.processIdentifier }

    /// Starts `loupe serve` with `arguments`; with `environment`, in the test's environment
    /// without its `LOUPE_*` and `IMGPROXY_*` variables plus `environment`'s; its standard error
    /// to `standardError` (the test's own by default).
    package init(arguments: [String], environment: [String: String]? = nil, standardError: FileHandle = .standardError) throws {
        let process = Process()
        process.executableURL = Self.executableURL
        process.arguments = arguments
        if let environment {
            process.environment = ProcessInfo.processInfo.environment
                .filter { !$0.key.hasPrefix("LOUPE_") && !$0.key.hasPrefix("IMGPROXY_") }
                .merging(environment) { _, given in given }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = standardError
        try process.run()
        self.process = process
        self.output = output
    }

    /// The port from the `listening on http://host:port` line (waits up to a minute).
    package func port() async throws -> Int {
        let handle = output.fileHandleForReading
        return try await onOwnThread {
            var text = ""
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.contains("listening on http://") }),
                   let port = line.split(separator: ":").last.flatMap({ Int($0) }) {
                    return port
                }
            }
            throw FixtureError("loupe serve did not report a port; it printed: \(text)")
        }
    }

    package func signal(_ signal: Int32) {
        Glibc.kill(process.processIdentifier, signal)
    }

    /// The exit status, once it exits (SIGKILL after `timeout`).
    package func waitForExit(timeout: Duration) async throws -> Int32 {
        let process = self.process
        return try await onOwnThread {
            let deadline = ContinuousClock.now + timeout
            while process.isRunning, ContinuousClock.now < deadline { usleep(10_000) }
            if process.isRunning {
                Glibc.kill(process.processIdentifier, SIGKILL)
                throw FixtureError("loupe serve did not exit within \(timeout)")
            }
            return process.terminationStatus
        }
    }

    package func kill() {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
    }
}

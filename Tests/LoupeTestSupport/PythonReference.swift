import Dispatch
import Foundation

/// Runs a reference script from Scripts/conformance (Pillow, colorthief, the PyPI `imgproxy`
/// builder…) in the conformance venv that `Scripts/conformance/venv.sh` makes (Scripts/ci/test.sh
/// runs it), from the repository root, and returns what it printed.
package enum PythonReference {
    /// Runs `script` with `arguments` and waits for it on a Dispatch thread, not on Swift's
    /// cooperative pool: the references take minutes, and the pool has only as many threads as
    /// cores (two in CI); blocking them would starve the concurrency tests running beside them.
    package static func run(_ script: String, arguments: [String], interpreter: Interpreter = .conformance) async throws -> Data {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(script, arguments: arguments, interpreter: interpreter) })
            }
        }
    }

    /// Which Python runs a script.
    package enum Interpreter: Sendable {
        /// The conformance venv's, with the PyPI references.
        case conformance
        /// The system's python3, with the references Debian packages (python3-opencv; Scripts/setup.sh).
        case system
    }

    /// Runs `script` with `arguments`, blocking the calling thread until it exits.
    package static func runBlocking(_ script: String, arguments: [String], interpreter: Interpreter = .conformance) throws -> Data {
        let root = Corpus.repositoryRoot
        let python = switch interpreter {
        case .conformance: root.appendingPathComponent(".venv-conformance/bin/python")
        case .system: URL(fileURLWithPath: "/usr/bin/python3")
        }
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw CorpusMissing(path: "\(python.path) (run bash Scripts/conformance/venv.sh)")
        }
        let outcome = try ChildProcess.runBlocking(
            python, [root.appendingPathComponent("Scripts/conformance/\(script)").path] + arguments, directory: root, timeout: .seconds(600))
        guard outcome.status == 0 else { throw Failed(script: script, status: outcome.status, standardError: outcome.standardError) }
        return outcome.output
    }

    /// A reference script exited with an error.
    package struct Failed: Error, CustomStringConvertible {
        /// The script's name.
        package let script: String
        /// Its exit status.
        package let status: Int32
        /// What it wrote to standard error.
        package let standardError: String
        package var description: String { "Python reference \(script) exited with status \(status): \(standardError)" }
    }
}

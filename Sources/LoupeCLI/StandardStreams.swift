import ArgumentParser
import Foundation

/// Unbuffered writes to standard output and error: each line reaches a pipe (`| jq`) the
/// moment it is complete, and lines from concurrent work never interleave mid-line.
enum StandardOutput {
    static func writeLine(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}

/// See ``StandardOutput``.
enum StandardError {
    static func writeLine(_ line: String) {
        write(line + "\n")
    }

    static func write(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes `loupe: <message>` and returns the exit status 1 for the caller to throw: a
    /// command that could not do its work.
    static func failure(_ message: String) -> ExitCode {
        writeLine("loupe: " + message)
        return ExitCode(1)
    }

    /// Whether standard error is a terminal (where a progress bar belongs).
    static var isTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

import Foundation

/// Runs `executable` with `arguments` (in `directory` when given) to its end, blocking the calling
/// thread, and returns what it wrote to standard output and its exit status: the reference tools
/// the tests compare with (Python scripts, `djpeg`).
package func childProcessOutput(_ executable: URL, arguments: [String], in directory: URL? = nil) throws -> (output: Data, status: Int32) {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = directory }
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    // Read to the end first: waiting for exit with a full pipe would deadlock.
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (output, process.terminationStatus)
}

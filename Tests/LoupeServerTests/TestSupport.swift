import Foundation

/// Paths in the repository checkout the tests run from.
enum Repository {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
}

/// Runs a Python script from Scripts/conformance in the conformance venv
/// (`Scripts/conformance/venv.sh`, which Scripts/test.sh runs), waiting on a Dispatch thread.
func runPythonReference(_ script: String, arguments: [String]) async throws -> Data {
    let python = Repository.root.appendingPathComponent(".venv-conformance/bin/python")
    guard FileManager.default.isExecutableFile(atPath: python.path) else {
        throw TestFailure("the conformance venv \(python.path) is missing; run `bash Scripts/conformance/venv.sh`")
    }
    let process = Process()
    process.executableURL = python
    process.arguments = [Repository.root.appendingPathComponent("Scripts/conformance/\(script)").path] + arguments
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let (data, status) = await withCheckedContinuation { (continuation: CheckedContinuation<(Data, Int32), Never>) in
        DispatchQueue.global().async {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            continuation.resume(returning: (data, process.terminationStatus))
        }
    }
    guard status == 0 else { throw TestFailure("\(script) exited with status \(status)") }
    return data
}

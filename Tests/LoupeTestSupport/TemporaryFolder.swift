import Foundation

/// A fresh folder under the system's temporary directory for one test, removed by `remove()`:
/// the one helper the pipeline's and the command-line tool's tests share.
package struct TemporaryFolder: Sendable {
    /// Where it is.
    package let url: URL

    /// A fresh, unused path; the folder itself is not created (a `DiskCache` creates its own).
    package init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("loupe-test-\(UUID().uuidString)")
    }

    /// A fresh folder, created.
    package static func created() throws -> TemporaryFolder {
        let folder = TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url, withIntermediateDirectories: true)
        return folder
    }

    /// The path of `name` inside the folder.
    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Removes the folder and everything in it.
    package func remove() { try? FileManager.default.removeItem(at: url) }
}

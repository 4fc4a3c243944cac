import Foundation
import LoupeLoading
import LoupeTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// ``RootedFileSystem`` and ``RootedFileLoader`` on a real folder: what may be read under the
/// root, and every other path refused before it is opened.
@Suite struct RootedFileSystemTests {
    @Test func pathsThatCouldLeaveTheRootAreRefusedWithoutLookingAtTheDisk() throws {
        #expect(try RootedFileSystem.components(of: "/a/b.jpg") == ["a", "b.jpg"])
        #expect(try RootedFileSystem.components(of: "a/%2e%2e/b.jpg") == ["a", "%2e%2e", "b.jpg"])  // literal: no decoding
        for path in ["/../a.jpg", "a/../../b", "./a", "a/.", "a//b", "a/", "//a", "", "/", "a\u{0}.jpg",
                     "/" + String(repeating: "a/", count: 2100) + "b"] {
            #expect(throws: RootedFileError.self, "\(path)") { try RootedFileSystem.components(of: path) }
        }
    }

    @Test func onlyRegularFilesUnderTheRootAreReadAndLinksAreNotFollowed() async throws {
        let folder = try TemporaryFolder.created()
        defer { folder.remove() }
        let root = folder.path("root")
        try FileManager.default.createDirectory(atPath: root + "/a", withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: root + "/a/file.txt"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: folder.path("secret.txt")))
        try FileManager.default.createSymbolicLink(atPath: root + "/link.txt", withDestinationPath: "a/file.txt")
        try FileManager.default.createSymbolicLink(atPath: root + "/up", withDestinationPath: "..")
        #expect(mkfifo(root + "/fifo", 0o600) == 0)
        // The root itself may be reached through a link.
        try FileManager.default.createSymbolicLink(atPath: folder.path("alias"), withDestinationPath: root)
        let files = try RootedFileSystem(root: folder.path("alias"))
        #expect(files.root == URL(fileURLWithPath: root).resolvingSymlinksInPath().path)

        let (data, attributes) = try files.contents(of: "/a/file.txt", maximumSize: 100)
        #expect(String(decoding: data, as: UTF8.self) == "hello")
        #expect(attributes.size == 5)
        #expect(try files.attributes(of: "a/file.txt") == attributes)
        #expect(throws: RootedFileError.tooLarge(limit: 4, size: 5)) { try files.contents(of: "a/file.txt", maximumSize: 4) }
        #expect(throws: RootedFileError.notRegularFile) { try files.contents(of: "fifo", maximumSize: 100) }
        #expect(throws: RootedFileError.notRegularFile) { try files.attributes(of: "a") }
        #expect(throws: RootedFileError.notFound) { try files.attributes(of: "a/missing") }
        #expect(throws: RootedFileError.notFound) { try files.attributes(of: "a/file.txt/x") }
        for path in ["link.txt", "up/secret.txt"] {
            #expect(throws: RootedFileError.self, "\(path)") { try files.contents(of: path, maximumSize: 100) }
            do {
                _ = try files.contents(of: path, maximumSize: 100)
            } catch {
                guard case .refused = error else { Issue.record("\(path): \(error)"); continue }
            }
        }
        #expect(throws: RootedFileError.rootUnusable("is not a folder")) { try RootedFileSystem(root: root + "/a/file.txt") }

        // The loader: file URLs under the root only, with the file's Last-Modified.
        let loader = RootedFileLoader(fileSystem: files, maximumSize: 100)
        let response = try await loader.loadData(for: DataRequest(url: try loader.url(for: "/a/file.txt")))
        #expect(response.data == Data("hello".utf8))
        #expect(response.header("Last-Modified")?.hasSuffix(" GMT") == true)
        await #expect(throws: DataLoadingError.self) {
            try await loader.loadData(for: DataRequest(url: URL(fileURLWithPath: folder.path("secret.txt"))))
        }
        await #expect(throws: DataLoadingError.self) {
            try await loader.loadData(for: DataRequest(url: URL(fileURLWithPath: root + "/../secret.txt")))
        }
    }
}

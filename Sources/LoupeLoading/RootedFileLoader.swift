import Foundation

/// Loads `file` URLs under one folder only, through ``RootedFileSystem`` (which decides what may
/// be read), refusing files over a size limit before reading them: the local loader of a
/// service whose clients name the files. Every other URL, and every file URL outside the
/// folder, is refused.
public struct RootedFileLoader: DataLoading {
    /// The folder and its rules.
    public let fileSystem: RootedFileSystem
    /// The largest file accepted, in bytes.
    public var maximumSize: Int

    /// A loader for the files under `fileSystem`'s folder, up to `maximumSize` bytes each.
    public init(fileSystem: RootedFileSystem, maximumSize: Int) {
        self.fileSystem = fileSystem
        self.maximumSize = maximumSize
    }

    /// The file URL under the folder for `path` (relative to it), checked by the same rules as a
    /// load: what a caller hands the pipeline for a path a client named.
    public func url(for path: String) throws(RootedFileError) -> URL {
        let components = try RootedFileSystem.components(of: path)
        return URL(fileURLWithPath: folderPrefix + components.joined(separator: "/"))
    }

    /// The folder's path with one trailing `/` (the root folder `/` is one already).
    private var folderPrefix: String { fileSystem.root.hasSuffix("/") ? fileSystem.root : fileSystem.root + "/" }

    public func loadData(for request: DataRequest, progress: DataLoadingProgress?) async throws -> DataResponse {
        guard request.url.scheme?.lowercased() == "file" else {
            throw DataLoadingError.unsupportedScheme(request.url.scheme ?? "")
        }
        let path = request.url.path
        guard path.hasPrefix(folderPrefix) else { throw DataLoadingError.file(path: path, reason: "outside the served folder") }
        let relative = String(path.dropFirst(folderPrefix.count))
        let contents: (data: Data, attributes: RootedFileAttributes)
        do throws(RootedFileError) {
            contents = try fileSystem.contents(of: relative, maximumSize: maximumSize)
        } catch .tooLarge(let limit, let size) {
            throw DataLoadingError.tooLarge(limit: limit, declared: size)
        } catch {
            throw DataLoadingError.file(path: relative, reason: error.description)
        }
        progress?(contents.data.count, contents.data.count)
        return DataResponse(data: contents.data, statusCode: 200,
                            headers: ["last-modified": HTTPDate.string(from: contents.attributes.modified),
                                      "content-length": String(contents.data.count)],
                            url: request.url)
    }
}

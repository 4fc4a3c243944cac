import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The regular files under one folder, reachable by a path relative to it and nothing else: the
/// one place that decides whether a path a client names may be read (the service's `local://`
/// sources).
///
/// A path is refused before anything is opened when it has a `.` or `..` component, an empty one
/// (`a//b`, a trailing `/`) or a NUL byte. The rest is walked from the folder one component at a
/// time with `openat` and `O_NOFOLLOW`, each folder opened relative to the one before, so a
/// symbolic link at any component is refused (relative or absolute, pointing in or out) and a
/// link swapped in while the walk runs cannot lead it out. The last component is examined with
/// `fstatat` without following links and without opening it: a FIFO, device, socket or folder is
/// refused unopened. A regular file is then opened (`O_NONBLOCK`, so that even a FIFO swapped in
/// at that instant cannot block) and the open descriptor checked to be that same regular file
/// before a byte is read.
///
/// The folder itself is resolved once, when this is made (it may be a symbolic link).
public struct RootedFileSystem: Sendable, Equatable {
    /// The folder, as an absolute path with its symbolic links resolved.
    public let root: String

    /// The longest relative path accepted, in bytes (Linux's `PATH_MAX`).
    static let maximumPathLength = 4096

    /// The folder at `root`.
    /// - Throws: ``RootedFileError/rootUnusable(_:)`` when it does not exist or is not a folder.
    public init(root: String) throws(RootedFileError) {
        guard !root.isEmpty, let resolved = realpath(root, nil) else {
            throw .rootUnusable("does not exist or cannot be resolved")
        }
        let path = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { throw .rootUnusable("is not a folder") }
        self.root = path
    }

    /// The components of `path` (relative to the folder; one leading `/` allowed), or why it is
    /// refused. Pure: no file system access.
    public static func components(of path: String) throws(RootedFileError) -> [String] {
        guard !path.utf8.contains(0) else { throw .refused("the path contains a NUL byte") }
        guard path.utf8.count <= maximumPathLength else { throw .refused("the path is longer than \(maximumPathLength) bytes") }
        var relative = Substring(path)
        if relative.hasPrefix("/") { relative = relative.dropFirst() }
        let components = relative.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        for component in components {
            switch component {
            case "": throw .refused("the path has an empty component (// or a trailing /)")
            case ".", "..": throw .refused("the path has a '\(component)' component")
            default: continue
            }
        }
        return components
    }

    /// What `path` names, when it is a regular file under the folder; nothing is opened for
    /// reading.
    public func attributes(of path: String) throws(RootedFileError) -> RootedFileAttributes {
        let (folder, name) = try openParent(of: path)
        defer { close(folder) }
        return try regularFileAttributes(name, in: folder)
    }

    /// The contents of the regular file at `path` and what it is, refusing a file over
    /// `maximumSize` bytes before reading it (and one that grows past it while read).
    public func contents(of path: String, maximumSize: Int) throws(RootedFileError) -> (data: Data, attributes: RootedFileAttributes) {
        let (folder, name) = try openParent(of: path)
        defer { close(folder) }
        let expected = try regularFileAttributes(name, in: folder)
        guard expected.size <= maximumSize else { throw .tooLarge(limit: maximumSize, size: expected.size) }
        let file = openat(folder, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard file >= 0 else { throw Self.openError(errno) }
        defer { close(file) }
        // The name may have been replaced between the look and the open: what is open must be
        // the regular file that was looked at.
        var info = stat()
        guard fstat(file, &info) == 0 else { throw .unreadable("fstat failed (errno \(errno))") }
        let opened = RootedFileAttributes(info)
        guard info.st_mode & S_IFMT == S_IFREG, opened.device == expected.device, opened.inode == expected.inode else {
            throw .notRegularFile
        }
        guard opened.size <= maximumSize else { throw .tooLarge(limit: maximumSize, size: opened.size) }
        return (try Self.readAll(file, maximumSize: maximumSize), opened)
    }

    /// Opens the folder holding the last component, walking from the root without following
    /// links; returns its descriptor (the caller closes it) and the last component.
    private func openParent(of path: String) throws(RootedFileError) -> (folder: Int32, name: String) {
        let components = try Self.components(of: path)
        guard let name = components.last else { throw .refused("the path is empty") }
        var folder = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard folder >= 0 else { throw .unreadable("the folder cannot be opened (errno \(errno))") }
        for component in components.dropLast() {
            let next = openat(folder, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            var error: RootedFileError?
            if next < 0 {
                error = Self.openError(errno)
                // A link refused for not being a folder is still a link: say so, whatever errno.
                var info = stat()
                if fstatat(folder, component, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFLNK {
                    error = .refused("the path goes through a symbolic link, which is not followed")
                }
            }
            close(folder)
            if let error { throw error }
            folder = next
        }
        return (folder, name)
    }

    private func regularFileAttributes(_ name: String, in folder: Int32) throws(RootedFileError) -> RootedFileAttributes {
        var info = stat()
        guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { throw Self.openError(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return RootedFileAttributes(info)
        case S_IFLNK: throw .refused("the path names a symbolic link, which is not followed")
        default: throw .notRegularFile
        }
    }

    private static func openError(_ code: Int32) -> RootedFileError {
        switch code {
        // ELOOP: a symbolic link where O_NOFOLLOW allows none; ENOTDIR: a component that is
        // not a folder (or, with O_DIRECTORY, a link to one).
        case ELOOP: .refused("the path goes through a symbolic link, which is not followed")
        case ENOENT, ENOTDIR, ENAMETOOLONG: .notFound
        case EACCES, EPERM: .unreadable("permission denied")
        default: .unreadable("errno \(code)")
        }
    }

    /// Reads `file` to its end; at most `maximumSize` bytes, one read at a time of at most 1 MB.
    private static func readAll(_ file: Int32, maximumSize: Int) throws(RootedFileError) -> Data {
        var data = Data()
        let chunk = 1 << 20
        var buffer = [UInt8](repeating: 0, count: chunk)
        var interruptions = 0
        // Bounded: each pass reads at least one byte or ends, and more than the limit throws.
        while true {
            let count = buffer.withUnsafeMutableBytes { read(file, $0.baseAddress, chunk) }
            if count == 0 { return data }
            if count < 0 {
                let failure = errno
                if failure == EINTR, interruptions < 100 {
                    interruptions += 1
                    continue
                }
                throw .unreadable("read failed (errno \(failure))")
            }
            guard data.count + count <= maximumSize else { throw .tooLarge(limit: maximumSize, size: data.count + count) }
            data.append(contentsOf: buffer[0..<count])
        }
    }
}

/// What a file under a ``RootedFileSystem`` is: enough to tell one version of it from the next.
public struct RootedFileAttributes: Sendable, Equatable {
    /// Its size in bytes.
    public let size: Int
    /// Its modification time.
    public let modified: Date
    /// Its device and inode: the file, whatever its name.
    public let device: UInt64
    /// See ``device``.
    public let inode: UInt64
    /// Modification time in nanoseconds since 1970, exact (a `Date` rounds).
    public let modifiedNanoseconds: Int64

    init(_ info: stat) {
        size = Int(info.st_size)
        modifiedNanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1e9)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// One version of the file: changes when it is rewritten, replaced or touched.
    public var version: String { "\(device):\(inode):\(size):\(modifiedNanoseconds)" }
}

/// Why a path under a ``RootedFileSystem`` cannot be read.
public enum RootedFileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path would leave the folder or goes where it may not: `..`, `.`, an empty component, a
    /// NUL byte, a symbolic link.
    case refused(String)
    /// Nothing by that name.
    case notFound
    /// Not a regular file: a folder, FIFO, device or socket.
    case notRegularFile
    /// Larger than the limit (`size` as far as known).
    case tooLarge(limit: Int, size: Int)
    /// It exists but cannot be read.
    case unreadable(String)
    /// The folder itself cannot be used (why, e.g. "is not a folder").
    case rootUnusable(String)

    public var description: String {
        switch self {
        case .refused(let reason): "refused: \(reason)"
        case .notFound: "no such file"
        case .notRegularFile: "not a regular file"
        case .tooLarge(let limit, let size): "file of \(size) bytes exceeds the \(limit)-byte limit"
        case .unreadable(let reason): "cannot be read: \(reason)"
        case .rootUnusable(let reason): "the local folder cannot be used: \(reason)"
        }
    }
}

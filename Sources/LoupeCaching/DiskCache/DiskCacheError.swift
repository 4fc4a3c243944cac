import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Why a disk cache operation failed. Every failure the file system or the cache's own files
/// can cause ends up here; none of them crashes the process.
public enum DiskCacheError: Error, Equatable, Sendable {
    /// The configuration is unusable (for example a size limit of zero); the text says why.
    case invalidConfiguration(String)
    /// The payload alone is larger than the cache's size limit, so it can never be stored.
    /// Checked before anything is written.
    case entryTooLarge(size: Int, limit: Int)
    /// The key, validators and user info together exceed `DiskCache.metadataLimit` bytes.
    /// Checked before anything is written.
    case metadataTooLarge(size: Int, limit: Int)
    /// Another `DiskCache` (in this process or another one) has the directory open. A cache
    /// directory has exactly one owner at a time; see `DiskCache`.
    case directoryInUse(path: String)
    /// The file system is full, or a quota or file-size limit was hit. The cache keeps serving
    /// what it already holds.
    case noSpace(path: String)
    /// The directory cannot be written (permissions, read-only mount). The cache keeps serving
    /// what it already holds.
    case notWritable(path: String)
    /// The stored entry for this key failed its checksum or was truncated. It has been removed
    /// from the cache, and the next lookup is a miss; it was never returned.
    case corruptEntry(key: String)
    /// `close()` was called; the cache no longer serves or stores anything.
    case closed
    /// Any other system call failure, with its `errno`.
    case io(operation: String, path: String, errno: Int32)

    /// Maps a failed system call to the case a caller can act on.
    static func fromErrno(_ code: Int32, operation: String, path: String) -> DiskCacheError {
        switch code {
        case ENOSPC, EDQUOT, EFBIG: return .noSpace(path: path)
        case EACCES, EPERM, EROFS: return .notWritable(path: path)
        default: return .io(operation: operation, path: path, errno: code)
        }
    }
}

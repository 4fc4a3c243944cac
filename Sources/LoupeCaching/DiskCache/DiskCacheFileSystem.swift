import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The few POSIX calls the disk cache makes, each returning `errno` on failure instead of
/// throwing an untyped Foundation error, so every failure maps onto `DiskCacheError`.
///
/// Plain system calls rather than `FileManager`: the read path must stay within 1.3× of a raw
/// read, and every descriptor is opened `O_CLOEXEC` so a child process never inherits (and
/// keeps alive) the cache's lock.
package enum DiskCacheFileSystem {
    /// A failed system call's `errno` (package-visible: `DiskCacheSegment`'s calls throw it).
    package struct Failure: Error {
        package var errno: Int32
    }

    /// Creates `path` and any missing parents, like `mkdir -p`.
    static func makeDirectories(_ path: String) throws(Failure) {
        if mkdir(path, 0o755) == 0 { return }
        let code = errno
        switch code {
        case EEXIST:
            var info = stat()
            guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { throw Failure(errno: ENOTDIR) }
        case ENOENT:
            let parent = (path as NSString).deletingLastPathComponent
            guard !parent.isEmpty, parent != path else { throw Failure(errno: code) }
            try makeDirectories(parent)
            if mkdir(path, 0o755) != 0, errno != EEXIST { throw Failure(errno: errno) }
        default:
            throw Failure(errno: code)
        }
    }

    /// Reserves disk blocks for `length` bytes at `offset` of `descriptor` without changing the
    /// file's length (Linux `fallocate` with `FALLOC_FL_KEEP_SIZE`); `errno` on failure,
    /// `EOPNOTSUPP` where the file system or the C library cannot. Package-visible for the
    /// floor that `LoupeBenchmarks disk-stores` measures.
    package static func reserveBlocks(_ descriptor: Int32, offset: Int, length: Int) throws(Failure) {
        guard let fallocate = linuxFallocate else { throw Failure(errno: EOPNOTSUPP) }
        // FALLOC_FL_KEEP_SIZE from <linux/falloc.h>, part of the kernel's stable ABI.
        let keepSize: Int32 = 0x01
        guard fallocate(descriptor, keepSize, off_t(offset), off_t(length)) == 0 else { throw Failure(errno: errno) }
    }

    /// glibc's `fallocate`, looked up at run time: Swift's Glibc module leaves it out (it is
    /// declared only under `_GNU_SOURCE`), and a C target for one call would be a module of its
    /// own for the caching core.
    private static let linuxFallocate: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32)? = {
        #if os(Linux)
        // RTLD_DEFAULT is a null handle in glibc.
        guard let symbol = dlsym(nil, "fallocate") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32, off_t, off_t) -> Int32).self)
        #else
        return nil
        #endif
    }()

    /// Writes every byte of `bytes` to `descriptor`, retrying short writes and interrupts.
    static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) throws(Failure) {
        guard var base = bytes.baseAddress else { return }
        var remaining = bytes.count
        while remaining > 0 {
            let written = write(descriptor, base, remaining)
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            // A zero-byte write of a non-empty buffer means the device took nothing: treat it as full.
            if written == 0 { throw Failure(errno: ENOSPC) }
            remaining -= written
            base += written
        }
    }

    /// `writeAll` for a byte array (the standard `withUnsafeBytes` does not forward typed throws).
    static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) throws(Failure) {
        let failure: Failure? = bytes.withUnsafeBytes { raw in
            do throws(Failure) {
                try writeAll(descriptor, raw)
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
    }

    /// Writes `head`, `data` and `tail` with one `writev` (a segment entry: header + metadata,
    /// payload, footer), finishing a short write with plain writes.
    static func writeAll(_ descriptor: Int32, _ head: [UInt8], _ data: Data, _ tail: [UInt8]) throws(Failure) {
        let failure: Failure? = head.withUnsafeBytes { zeroth in
            data.withUnsafeBytes { first in
                tail.withUnsafeBytes { second in
                    do throws(Failure) {
                        let parts = [zeroth, first, second]
                        var vectors = parts.map { iovec(iov_base: UnsafeMutableRawPointer(mutating: $0.baseAddress), iov_len: $0.count) }
                        var written = writev(descriptor, &vectors, Int32(vectors.count))
                        if written < 0 {
                            guard errno == EINTR else { throw Failure(errno: errno) }
                            written = 0
                        }
                        // Whatever the short write left of each part, in order.
                        for part in parts {
                            let done = min(written, part.count)
                            written -= done
                            if done < part.count { try writeAll(descriptor, UnsafeRawBufferPointer(rebasing: part[done...])) }
                        }
                        return nil
                    } catch {
                        return error
                    }
                }
            }
        }
        if let failure { throw failure }
    }

    /// Reads exactly `count` bytes at the current offset into `buffer`; returns how many were
    /// available (fewer only at end of file).
    static func readFully(_ descriptor: Int32, into buffer: UnsafeMutableRawPointer, count: Int) throws(Failure) -> Int {
        var total = 0
        while total < count {
            let got = read(descriptor, buffer + total, count - total)
            if got < 0 {
                if errno == EINTR { continue }
                throw Failure(errno: errno)
            }
            if got == 0 { break }
            total += got
        }
        return total
    }

    /// The whole content of a file, or `nil` when it does not exist.
    static func readFile(_ path: String) throws(Failure) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 {
            if errno == ENOENT { return nil }
            throw Failure(errno: errno)
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { throw Failure(errno: errno) }
        let size = Int(info.st_size)
        var failure: Failure?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            do throws(DiskCacheFileSystem.Failure) {
                initialized = try readFully(descriptor, into: base, count: size)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Calls `body` with the name of every entry of a directory, as raw bytes (no `String` per
    /// name: recovery lists up to hundreds of thousands of them). Used only when opening a cache
    /// after a crash or a lost journal, never by a lookup.
    static func forEachName(in path: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(Failure) {
        guard let directory = opendir(path) else { throw Failure(errno: errno) }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            withUnsafeBytes(of: entry.pointee.d_name) { raw in
                let bytes = raw.bindMemory(to: UInt8.self)
                let length = bytes.firstIndex(of: 0) ?? bytes.count
                body(UnsafeBufferPointer(rebasing: bytes[0..<length]))
            }
        }
    }

    /// Removes a file; a file that is already gone is not an error.
    @discardableResult
    static func remove(_ path: String) -> Bool {
        unlink(path) == 0 || errno == ENOENT
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The on-disk form of one cache entry: `payload | trailer | footer`.
///
/// - The payload comes first so a read can hand out the file buffer itself as the `Data`
///   (no copy, index 0).
/// - The trailer repeats the entry's metadata (key, dates, validators, user info) so the index
///   can be rebuilt from the files alone when the journal is lost.
/// - The footer (24 bytes) holds the trailer length, a format version, an XXH64 checksum of
///   everything before the checksum, and a magic number.
///
/// Files are written to `<generation>.tmp` and renamed to `<generation>`, so a file under its
/// final name is always complete; the checksum catches what the rename cannot (a damaged disk,
/// a file changed behind the cache's back).
package enum DiskCacheEntryFile {
    static let footerSize = 24
    private static let magic: UInt64 = 0x4C50_4443_454E_5452 // "LPDCENTR"
    private static let version: UInt32 = 1

    /// What identifies one version of a file: inode, size and change time. `ctime` cannot be set
    /// from user space, and any write, truncation, rename or replacement of the file changes at
    /// least one of the three.
    struct Stamp: Equatable {
        var inode: UInt64
        var size: Int
        var changeSeconds: Int
        var changeNanoseconds: Int

        init(_ info: stat) {
            inode = UInt64(info.st_ino)
            size = Int(info.st_size)
            changeSeconds = Int(info.st_ctim.tv_sec)
            changeNanoseconds = Int(info.st_ctim.tv_nsec)
        }
    }

    /// Outcome of reading an entry file.
    enum ReadResult {
        /// The payload, and the stamp of the file it was read from (now verified).
        case payload(Data, Stamp)
        case missing
        case corrupt
        case failed(Int32)
    }

    /// The trailer + footer for `record` (whose `checksum` and `fileSize` are filled in here).
    static func makeTrailer(for record: inout DiskCacheIndex.Record, payload: Data) -> [UInt8] {
        var writer = DiskCacheByteWriter(reservingCapacity: 64 + record.key.utf8.count + footerSize)
        appendMetadata(of: record, to: &writer)
        let trailerLength = UInt32(writer.bytes.count)
        writer.append(trailerLength)
        writer.append(version)
        let payloadHash = payload.withUnsafeBytes { DiskCacheChecksum.hash($0) }
        let checksum = DiskCacheChecksum.hash(writer.bytes, seed: payloadHash)
        writer.append(checksum)
        writer.append(magic)
        record.checksum = checksum
        record.fileSize = payload.count + writer.bytes.count
        return writer.bytes
    }

    /// Writes the entry to `temporaryPath`, then renames it over `path`. On failure nothing is
    /// left behind under either name.
    static func write(payload: Data, trailer: [UInt8], temporaryPath: String, path: String) throws(DiskCacheFileSystem.Failure) {
        let descriptor = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw DiskCacheFileSystem.Failure(errno: errno) }
        do throws(DiskCacheFileSystem.Failure) {
            try DiskCacheFileSystem.writeAll(descriptor, payload, trailer)
        } catch {
            close(descriptor)
            DiskCacheFileSystem.remove(temporaryPath)
            throw error
        }
        // close() reports delayed write errors (for example on network file systems).
        if close(descriptor) != 0 {
            let code = errno
            DiskCacheFileSystem.remove(temporaryPath)
            throw DiskCacheFileSystem.Failure(errno: code)
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            DiskCacheFileSystem.remove(temporaryPath)
            throw DiskCacheFileSystem.Failure(errno: code)
        }
    }

    /// Reads the file and checks it against what the index expects (size and checksum). A file
    /// of the wrong size, with a damaged footer or a checksum mismatch is `.corrupt`.
    ///
    /// The checksum is computed when the file has not been verified in this session or has
    /// changed since (`record.verifiedStamp` differs from the file's `fstat`). Hashing 100 KB
    /// costs about as much as reading it, and a file the cache wrote atomically and already
    /// verified can only change by a write that moves its `ctime` — so repeated reads of a warm
    /// entry stay close to a raw read, while every crash- or tamper-damaged file is caught on
    /// its first read.
    static func read(path: String, expecting record: DiskCacheIndex.Record) -> ReadResult {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        if descriptor < 0 { return errno == ENOENT ? .missing : .failed(errno) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failed(errno) }
        let size = record.fileSize
        guard Int(info.st_size) == size, size >= record.payloadSize + footerSize else { return .corrupt }
        // malloc, not Data(count:): zero-filling 100 KB before reading over it is measurable.
        guard let buffer = malloc(size) else { return .failed(ENOMEM) }
        do throws(DiskCacheFileSystem.Failure) {
            let got = try DiskCacheFileSystem.readFully(descriptor, into: buffer, count: size)
            guard got == size else {
                free(buffer)
                return .corrupt
            }
        } catch {
            free(buffer)
            return .failed(error.errno)
        }
        let stamp = Stamp(info)
        if record.verifiedStamp != stamp {
            guard verify(UnsafeRawBufferPointer(start: buffer, count: size), payloadSize: record.payloadSize, checksum: record.checksum) else {
                free(buffer)
                return .corrupt
            }
        }
        return .payload(Data(bytesNoCopy: buffer, count: record.payloadSize, deallocator: .free), stamp)
    }

    /// Checks the footer and the checksum of a whole entry file held in memory.
    static func verify(_ bytes: UnsafeRawBufferPointer, payloadSize: Int, checksum: UInt64) -> Bool {
        let size = bytes.count
        guard size >= payloadSize + footerSize else { return false }
        var footer = DiskCacheByteReader(bytes, offset: size - footerSize)
        guard let trailerLength = footer.readUInt32(), footer.readUInt32() == version,
              footer.readUInt64() == checksum, footer.readUInt64() == magic,
              payloadSize + Int(trailerLength) + footerSize == size
        else { return false }
        let payloadHash = DiskCacheChecksum.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<payloadSize]))
        let covered = UnsafeRawBufferPointer(rebasing: bytes[payloadSize..<(size - 16)])
        return DiskCacheChecksum.hash(covered, seed: payloadHash) == checksum
    }

    /// Rebuilds an index record from a file's trailer (used only when the journal is lost).
    /// Reads the footer and trailer, not the payload: the payload is checked on first read.
    static func readRecord(path: String, generation: UInt64, now: Date) -> DiskCacheIndex.Record? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return nil }
        let size = Int(info.st_size)
        guard size >= footerSize else { return nil }
        var footerBytes = [UInt8](repeating: 0, count: footerSize)
        guard footerBytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, footerSize, off_t(size - footerSize)) }) == footerSize
        else { return nil }
        return footerBytes.withUnsafeBytes { footerRaw -> DiskCacheIndex.Record? in
            var footer = DiskCacheByteReader(footerRaw)
            guard let trailerLength = footer.readUInt32().map(Int.init), footer.readUInt32() == version,
                  let checksum = footer.readUInt64(), footer.readUInt64() == magic,
                  trailerLength <= size - footerSize
            else { return nil }
            let payloadSize = size - footerSize - trailerLength
            var trailerBytes = [UInt8](repeating: 0, count: trailerLength)
            guard trailerBytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, trailerLength, off_t(payloadSize)) }) == trailerLength
            else { return nil }
            return trailerBytes.withUnsafeBytes { trailerRaw -> DiskCacheIndex.Record? in
                var trailer = DiskCacheByteReader(trailerRaw)
                guard let metadata = readMetadata(from: &trailer), trailer.remaining == 0 else { return nil }
                return DiskCacheIndex.Record(
                    key: metadata.key, generation: generation, payloadSize: payloadSize, fileSize: size,
                    checksum: checksum, storedAt: metadata.storedAt, expiresAt: metadata.expiresAt,
                    lastAccessedAt: min(metadata.storedAt, now),
                    validators: metadata.validators, userInfo: metadata.userInfo)
            }
        }
    }

    /// What an entry carries about itself besides its payload, so the index can be rebuilt
    /// from the stored entries alone (entry files and segments alike). Package-visible for the
    /// `disk-stores` benchmark, which writes segments in the real format.
    package struct Metadata: Equatable {
        package var key: String
        package var storedAt: Date
        package var expiresAt: Date?
        package var validators: DiskCacheValidators
        package var userInfo: Data?

        package init(key: String, storedAt: Date, expiresAt: Date?, validators: DiskCacheValidators, userInfo: Data?) {
            self.key = key
            self.storedAt = storedAt
            self.expiresAt = expiresAt
            self.validators = validators
            self.userInfo = userInfo
        }
    }

    static func appendMetadata(of record: DiskCacheIndex.Record, to writer: inout DiskCacheByteWriter) {
        appendMetadata(Metadata(key: record.key, storedAt: record.storedAt, expiresAt: record.expiresAt,
                                validators: record.validators, userInfo: record.userInfo), to: &writer)
    }

    static func appendMetadata(_ metadata: Metadata, to writer: inout DiskCacheByteWriter) {
        writer.append(metadata.key)
        writer.append(metadata.storedAt)
        writer.append(optional: metadata.expiresAt)
        writer.append(optional: metadata.validators.etag)
        writer.append(optional: metadata.validators.lastModified)
        writer.append(optional: metadata.userInfo)
    }

    static func readMetadata(from reader: inout DiskCacheByteReader) -> Metadata? {
        guard let key = reader.readString(), let storedAt = reader.readDate(),
              let expiresAt = reader.readOptionalDate(), let etag = reader.readOptionalString(),
              let lastModified = reader.readOptionalString(), let userInfo = reader.readOptionalData()
        else { return nil }
        return Metadata(key: key, storedAt: storedAt, expiresAt: expiresAt,
                        validators: DiskCacheValidators(etag: etag, lastModified: lastModified), userInfo: userInfo)
    }
}

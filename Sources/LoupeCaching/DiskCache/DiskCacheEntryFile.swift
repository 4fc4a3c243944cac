import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// What a stored entry carries besides its payload, as the segments hold it: the metadata
/// coding (key, dates, validators, user info) that lets the index be rebuilt from the segments
/// alone, and the file stamp a verified entry is trusted under.
///
/// (The name is the previous layout's, one file per entry; that layout's writing and reading
/// code is gone, its `entries/` files are deleted on open.)
package enum DiskCacheEntryFile {
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

    /// What an entry carries about itself besides its payload, so the index can be rebuilt
    /// from the segments alone. Package-visible for the
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

import Foundation
import LoupeTestSupport
import Testing
@testable import LoupeCaching

@Suite final class DiskCacheWriterTests: Sendable {
    let folder = TemporaryFolder()
    let date = TestClock()

    deinit { folder.remove() }

    func makeWriter(stagingLimit: Int = 1 << 20) throws -> DiskCacheWriter {
        DiskCacheWriter(cache: try DiskCache(directory: folder.url, now: date.now), stagingLimit: stagingLimit)
    }

    @Test func aStagedEntryIsServedBeforeItIsWrittenAndWrittenByFlush() async throws {
        let writer = try makeWriter()
        let data = Data(repeating: 7, count: 1_000)
        let validators = DiskCacheValidators(etag: "\"a\"")
        #expect(writer.store(data, forKey: "k", expiry: .after(10), validators: validators))
        let staged = try #require(writer.entry(forKey: "k"))
        #expect(staged.data == data && staged.validators == validators && !staged.isExpired)
        await writer.flush()
        #expect(writer.stagedBytes == 0)
        let written = try #require(try writer.cache.entry(forKey: "k"))
        #expect(written.data == data && written.validators == validators)
        date.advance(by: 11)
        #expect(writer.entry(forKey: "k")?.isExpired == true)
    }

    /// The service's result cache keeps the format in `userInfo`: staged or written, it and the
    /// expiry fixed when the data was handed over come back unchanged.
    @Test func userInfoAndExpiryAreKeptFromStagingToDisk() async throws {
        let writer = try makeWriter()
        writer.queue.suspend()
        let storedAt = date.now()
        #expect(writer.store(Data([9, 9]), forKey: "r", expiry: .after(30), validators: DiskCacheValidators(etag: "\"e\""), userInfo: Data("png".utf8)))
        date.advance(by: 5) // the write runs later; the expiry counts from the hand-over
        let staged = try #require(writer.entry(forKey: "r"))
        #expect(staged.userInfo == Data("png".utf8) && staged.storedAt == storedAt)
        #expect(staged.expiresAt == storedAt.addingTimeInterval(30))
        writer.queue.resume()
        await writer.flush()
        let written = try #require(try writer.cache.entry(forKey: "r"))
        #expect(written.userInfo == Data("png".utf8) && written.validators.etag == "\"e\"")
        #expect(written.expiresAt == storedAt.addingTimeInterval(30))
        #expect(writer.containsFreshEntry(forKey: "r"))
        date.advance(by: 26)
        #expect(!writer.containsFreshEntry(forKey: "r"))
    }

    @Test func operationsOnAKeyHappenInOrder() async throws {
        let writer = try makeWriter()
        writer.store(Data([1]), forKey: "k", expiry: .after(0), validators: DiskCacheValidators(etag: "\"1\""))
        writer.markRevalidated(forKey: "k", expiry: .after(60), validators: DiskCacheValidators(etag: "\"2\""))
        #expect(writer.entry(forKey: "k")?.isExpired == false, "the staged copy was refreshed too")
        writer.store(Data([2]), forKey: "gone", expiry: .never)
        writer.remove(forKey: "gone")
        #expect(writer.entry(forKey: "gone") == nil)
        await writer.flush()
        let entry = try #require(try writer.cache.entry(forKey: "k"))
        #expect(entry.validators.etag == "\"2\"" && !entry.isExpired)
        #expect(try writer.cache.entry(forKey: "gone") == nil)
    }

    /// A removal waits behind the writes queued before it; meanwhile the written copy must not
    /// be read (it was, when a write landed between `remove` and its turn on the queue).
    @Test func aRemovedEntryIsMissedBeforeItsRemovalRuns() async throws {
        let writer = try makeWriter()
        writer.store(Data([1]), forKey: "k", expiry: .never)
        await writer.flush()
        writer.queue.suspend()
        writer.remove(forKey: "k")
        #expect(writer.entry(forKey: "k") == nil)
        #expect(!writer.containsFreshEntry(forKey: "k"))
        writer.store(Data([2]), forKey: "k", expiry: .never)
        #expect(writer.entry(forKey: "k")?.data == Data([2]), "stored again after the removal")
        writer.queue.resume()
        await writer.flush()
        #expect(try writer.cache.entry(forKey: "k")?.data == Data([2]))
        #expect(writer.entry(forKey: "k")?.data == Data([2]))
        writer.remove(forKey: "k")
        await writer.flush()
        #expect(writer.entry(forKey: "k") == nil)
        #expect(try writer.cache.entry(forKey: "k") == nil)
    }

    @Test func dataBeyondTheStagingLimitIsNotCached() async throws {
        let writer = try makeWriter(stagingLimit: 2_500)
        writer.queue.suspend() // holds every write back, as a slow disk would
        let results = (0..<4).map {
            writer.store(Data(repeating: UInt8($0), count: 1_000), forKey: "k\($0)", expiry: .never)
        }
        #expect(results == [true, true, false, false])
        #expect(writer.stagedBytes == 2_000)
        #expect(writer.entry(forKey: "k2") == nil)
        writer.queue.resume()
        await writer.flush()
        #expect(try writer.cache.entry(forKey: "k1")?.data == Data(repeating: 1, count: 1_000))
        #expect(try writer.cache.entry(forKey: "k2") == nil)
        #expect(writer.stagedBytes == 0)
    }
}

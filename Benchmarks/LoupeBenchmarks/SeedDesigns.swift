import Foundation

/// The reference designs the seeds build by hand, reproduced here only to be measured against.

/// A decoded image stand-in: NSCache stores objects.
final class CachedObject: Sendable {
    let bytes: Int
    init(bytes: Int) { self.bytes = bytes }
}

/// The final `ImageCacheManager` of ten views, one image: a shared `NSCache<NSString, _>` checked first (the
/// `String` key converted to `NSString` on every call, as the seed does), then an
/// `OngoingTaskStore` actor holding the in-flight `Task`s by URL.
final class Seed002ImageCacheManager: @unchecked Sendable {
    // Why `@unchecked Sendable` is safe: the only mutable state is `cache`, an `NSCache`, which is
    // documented thread-safe and in swift-corelibs-foundation takes its own lock in every method;
    // corelibs just does not mark it Sendable. `taskStore` is an actor and `load` is @Sendable.
    actor OngoingTaskStore {
        private var tasks: [String: Task<CachedObject?, Never>] = [:]
        func task(for key: String) -> Task<CachedObject?, Never>? { tasks[key] }
        func setTask(_ task: Task<CachedObject?, Never>, for key: String) { tasks[key] = task }
        func removeTask(for key: String) { tasks[key] = nil }
    }

    private let cache = NSCache<NSString, CachedObject>()
    private let taskStore = OngoingTaskStore()
    private let load: @Sendable (String) async -> CachedObject?

    init(load: @escaping @Sendable (String) async -> CachedObject?) {
        self.load = load
    }

    func loadImage(for urlString: String) async -> CachedObject? {
        if let cached = cache.object(forKey: urlString as NSString) { return cached }
        if let ongoing = await taskStore.task(for: urlString) { return await ongoing.value }
        let task = Task<CachedObject?, Never> { [self] in
            defer { Task { await taskStore.removeTask(for: urlString) } }
            guard let image = await load(urlString) else { return nil }
            cache.setObject(image, forKey: urlString as NSString)
            return image
        }
        await taskStore.setTask(task, for: urlString)
        return await task.value
    }
}

/// The reentrancy race's `ImageDownloader` actor (WWDC21), with its fix: the cache lives inside the actor,
/// so every lookup, hit or not, is an actor call.
actor Seed001ImageDownloader {
    private var cache: [String: CachedObject] = [:]
    private let load: @Sendable (String) async -> CachedObject

    init(load: @escaping @Sendable (String) async -> CachedObject) {
        self.load = load
    }

    func image(from url: String) async -> CachedObject {
        if let cached = cache[url] { return cached }
        let image = await load(url)
        cache[url, default: image] = image
        return cache[url, default: image]
    }
}

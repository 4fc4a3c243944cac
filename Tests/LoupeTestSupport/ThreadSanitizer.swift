#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether this test process runs under ThreadSanitizer (`swift test --sanitize=thread`): its
/// runtime's entry point is linked in. A bound that only tells "at a deadline" from "never" gives
/// such a run more room: every memory access goes through the sanitizer, and CI runs the service
/// suites at once under it on two cores, so a server's one-second timer can fire seconds late.
package enum ThreadSanitizer {
    package static let isActive: Bool = {
        guard let program = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(program) }
        return dlsym(program, "__tsan_init") != nil
    }()
}

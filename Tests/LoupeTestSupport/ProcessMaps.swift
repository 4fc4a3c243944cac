import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// This process's `/proc/self/maps`: what it has mapped, shared libraries included. Read with
/// read(2) to the end: the file's size is 0 to stat, and Foundation's whole-file readers stop
/// short on it.
package func processMaps() -> String {
    let descriptor = open("/proc/self/maps", O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return "" }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return String(decoding: bytes, as: UTF8.self)
}

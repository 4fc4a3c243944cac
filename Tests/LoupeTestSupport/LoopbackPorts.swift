import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port nothing listens on right now (the kernel's choice for port 0), for a server to take.
package func freeLoopbackPort() throws -> Int {
    try freePort(on: "127.0.0.1")
}

/// A port on `host` (an IPv4 address) that nothing listens on right now: bound by a socket that
/// is closed again.
package func freePort(on host: String) throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw FixtureError("socket failed") }
    defer { close(fd) }
    return try bindToFreePort(fd, host: host)
}

/// Binds `fd` to `host` (an IPv4 address) and port 0, returning the port the kernel chose.
func bindToFreePort(_ fd: Int32, host: String) throws -> Int {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw FixtureError("'\(host)' is not an IPv4 address") }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard bound == 0 else { throw FixtureError("bind to \(host) failed") }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let named = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    guard named == 0 else { throw FixtureError("getsockname failed") }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// The first of `count` consecutive loopback ports that nothing listens on right now (a
/// cluster puts its proxy on the first and instance i on first + i).
package func freeLoopbackPorts(count: Int) throws -> Int {
    for _ in 0..<100 {
        let first = try freeLoopbackPort()
        if first + count <= 65_535, (1..<count).allSatisfy({ canBind(port: first + $0) }) { return first }
    }
    throw FixtureError("no \(count) consecutive free loopback ports in 100 tries")
}

/// Whether something accepts connections on the loopback port.
func canConnect(port: Int) -> Bool {
    withLoopbackSocket(port: port) { fd, address, length in connect(fd, address, length) } == 0
}

private func canBind(port: Int) -> Bool {
    withLoopbackSocket(port: port) { fd, address, length in bind(fd, address, length) } == 0
}

/// `call` on a fresh TCP socket and 127.0.0.1:`port`; -1 when no socket could be made.
private func withLoopbackSocket(port: Int, _ call: (Int32, UnsafePointer<sockaddr>, socklen_t) -> Int32) -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
}

private func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

import Foundation
import NIOCore

/// Which network addresses an HTTP loader may connect to: the SSRF guard of a service that
/// loads URLs its clients name.
///
/// The default refuses every address that is not public unicast: loopback, RFC 1918 private,
/// link-local, CGNAT (100.64/10), unique-local IPv6 (fc00::/7), IPv4-mapped IPv6 of any of
/// those, unspecified (0.0.0.0, ::) and multicast. It is applied to the addresses a host name
/// resolves to before a load and to the peer of every connection the loader opens (every
/// redirect hop included), so a name that resolves to a public address at the check and to a
/// private one at connect time (DNS rebinding) is still refused.
public struct NetworkAddressPolicy: Sendable, Equatable {
    /// Whether non-public addresses are allowed at all (`true` turns the guard off).
    public var allowsPrivateNetworks: Bool
    /// Single addresses allowed even though they are not public (e.g. one test origin on
    /// 127.0.0.1), as IP address text.
    public var permittedAddresses: Set<String>

    /// A policy; the default refuses every non-public address.
    public init(allowsPrivateNetworks: Bool = false, permittedAddresses: Set<String> = []) {
        self.allowsPrivateNetworks = allowsPrivateNetworks
        self.permittedAddresses = permittedAddresses
    }

    /// Allows everything: a loader without a guard.
    public static let unrestricted = NetworkAddressPolicy(allowsPrivateNetworks: true)

    /// Whether a connection to `address` is allowed; addresses that are not IP (Unix sockets)
    /// are refused.
    public func allows(_ address: SocketAddress) -> Bool {
        if allowsPrivateNetworks { return true }
        guard let text = address.ipAddress else { return false }
        if permittedAddresses.contains(text) { return true }
        switch address {
        case .v4(let v4):
            return Self.isPublic(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            return Self.isPublic(ipv6: bytes)
        case .unixDomainSocket:
            return false
        }
    }

    /// Whether an IPv4 address (host byte order) is public unicast.
    static func isPublic(ipv4 a: UInt32) -> Bool {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool {
            let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
            return a & mask == network & mask
        }
        let refused: [(UInt32, UInt32)] = [
            (0x0000_0000, 8),   // 0.0.0.0/8, "this network" and unspecified
            (0x0A00_0000, 8),   // 10/8
            (0x6440_0000, 10),  // 100.64/10, CGNAT
            (0x7F00_0000, 8),   // 127/8, loopback
            (0xA9FE_0000, 16),  // 169.254/16, link-local (cloud metadata lives here)
            (0xAC10_0000, 12),  // 172.16/12
            (0xC000_0000, 24),  // 192.0.0/24, IETF protocol assignments
            (0xC0A8_0000, 16),  // 192.168/16
            (0xC612_0000, 15),  // 198.18/15, benchmarking
            (0xE000_0000, 4),   // 224/4, multicast
            (0xF000_0000, 4),   // 240/4, reserved and broadcast
        ]
        return !refused.contains { within($0.0, $0.1) }
    }

    /// Whether an IPv6 address (16 bytes, network order) is public unicast; IPv4-mapped and
    /// IPv4-compatible addresses are judged by their IPv4 part.
    static func isPublic(ipv6 b: [UInt8]) -> Bool {
        guard b.count == 16 else { return false }
        let firstTen = b[0..<10].allSatisfy { $0 == 0 }
        if firstTen, b[10] == 0xFF, b[11] == 0xFF {  // ::ffff:a.b.c.d
            return isPublic(ipv4: UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        if firstTen, b[10] == 0, b[11] == 0 {  // ::, ::1 and the deprecated ::a.b.c.d
            return false
        }
        if b[0] & 0xFE == 0xFC { return false }                 // fc00::/7, unique local
        if b[0] == 0xFE, b[1] & 0xC0 == 0x80 { return false }   // fe80::/10, link-local
        if b[0] == 0xFE, b[1] & 0xC0 == 0xC0 { return false }   // fec0::/10, old site-local
        if b[0] == 0xFF { return false }                        // multicast
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B {  // 64:ff9b::/96, NAT64 of IPv4
            return isPublic(ipv4: UInt32(b[12]) << 24 | UInt32(b[13]) << 16 | UInt32(b[14]) << 8 | UInt32(b[15]))
        }
        if b[0] == 0x20, b[1] == 0x01, b[2] == 0x0D, b[3] == 0xB8 { return false }  // documentation
        return true
    }
}

extension NetworkAddressPolicy {
    /// The first address `host` resolves to that the policy refuses, if any (an IP literal is
    /// its own answer). Resolution runs `getaddrinfo` on a Dispatch thread, off the cooperative
    /// pool; a name that does not resolve yields `nil` (the load then fails on its own).
    func refusedAddress(resolving host: String) async -> String? {
        guard !allowsPrivateNetworks else { return nil }
        let addresses = await withCheckedContinuation { (continuation: CheckedContinuation<[String], Never>) in
            DispatchQueue.global().async { continuation.resume(returning: Self.resolve(host)) }
        }
        return addresses.first { text in
            guard let address = try? SocketAddress(ipAddress: text, port: 0) else { return true }
            return !allows(address)
        }
    }

    /// Every address `host` resolves to, as text.
    private static func resolve(_ host: String) -> [String] {
        let name = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0 else { return [] }
        defer { freeaddrinfo(list) }
        var addresses: [String] = []
        var node = list
        while let entry = node?.pointee {
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if entry.ai_family == AF_INET, let raw = entry.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                if inet_ntop(AF_INET, &address, &buffer, socklen_t(buffer.count)) != nil {
                    addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
            } else if entry.ai_family == AF_INET6, let raw = entry.ai_addr {
                var address = raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                if inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil {
                    addresses.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
                }
            }
            node = entry.ai_next
        }
        return addresses
    }
}

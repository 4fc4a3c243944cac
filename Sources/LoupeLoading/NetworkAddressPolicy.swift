import Foundation
import NIOCore

/// Which network addresses an HTTP loader may connect to: the SSRF guard of a service that
/// loads URLs its clients name.
///
/// The default refuses every address that is not public unicast: loopback, RFC 1918 private,
/// link-local, CGNAT (100.64/10), unique-local IPv6 (fc00::/7), IPv4-mapped IPv6 of any of
/// those, unspecified (0.0.0.0, ::) and multicast. ``AsyncHTTPClientDataLoader`` applies it on
/// every hop (the first URL and each redirect) before connecting: the hop's name is resolved
/// once, every address checked, and the connection made to a checked address, never to a
/// second resolution's answer (`connectableAddress(for:)`), so DNS rebinding finds nothing to
/// rebind and a refused address gets no packet.
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
    /// The address a connection to `host` may go to: the name is resolved once, every address
    /// it resolves to must pass the guard, and the first is returned for the caller to connect
    /// to as it is, with no second resolution between this check and the connection. An IP
    /// literal is its own answer.
    ///
    /// - Throws: ``DataLoadingError/forbiddenAddress(_:)`` naming the first refused address,
    ///   ``DataLoadingError/network(_:)`` when the name does not resolve, `CancellationError`
    ///   when the caller is cancelled meanwhile.
    func connectableAddress(for host: String) async throws -> SocketAddress {
        let addresses = try await HostResolution.addresses(of: host)
        if let refused = addresses.first(where: { !allows($0) }) {
            throw DataLoadingError.forbiddenAddress(refused.ipAddress ?? host)
        }
        guard let first = addresses.first else { throw DataLoadingError.network("cannot resolve host '\(host)'") }
        return first
    }
}

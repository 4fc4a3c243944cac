@testable import LoupeLoading
import NIOCore
import Testing

/// The SSRF guard's address classes.
@Suite struct NetworkAddressPolicyTests {
    @Test func refusesEveryNonPublicRange() throws {
        let policy = NetworkAddressPolicy()
        let refused = ["127.0.0.1", "127.0.0.2", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254",
                       "100.64.0.1", "100.127.255.255", "0.0.0.0", "224.0.0.1", "255.255.255.255", "::", "::1", "fc00::1",
                       "fd12:3456::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1", "::ffff:169.254.169.254", "64:ff9b::a00:1"]
        for text in refused {
            #expect(!policy.allows(try SocketAddress(ipAddress: text, port: 80)), "\(text)")
        }
        let allowed = ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"]
        for text in allowed {
            #expect(policy.allows(try SocketAddress(ipAddress: text, port: 80)), "\(text)")
        }
    }

    @Test func exceptionsAndTheSwitch() throws {
        let loopback = try SocketAddress(ipAddress: "127.0.0.1", port: 8080)
        #expect(NetworkAddressPolicy(permittedAddresses: ["127.0.0.1"]).allows(loopback))
        #expect(!NetworkAddressPolicy(permittedAddresses: ["127.0.0.1"]).allows(try SocketAddress(ipAddress: "127.0.0.2", port: 1)))
        #expect(NetworkAddressPolicy(allowsPrivateNetworks: true).allows(loopback))
    }

    @Test func resolvesNamesBeforeJudging() async {
        #expect(await NetworkAddressPolicy().refusedAddress(resolving: "localhost") != nil)
        #expect(await NetworkAddressPolicy().refusedAddress(resolving: "127.0.0.1") == "127.0.0.1")
        #expect(await NetworkAddressPolicy(permittedAddresses: ["127.0.0.1", "::1"]).refusedAddress(resolving: "localhost") == nil)
    }
}

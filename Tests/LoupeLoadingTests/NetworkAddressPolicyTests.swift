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

    @Test func resolvesNamesBeforeJudging() async throws {
        await #expect(throws: DataLoadingError.forbiddenAddress("127.0.0.1")) {
            try await NetworkAddressPolicy().connectableAddress(for: "localhost")
        }
        await #expect(throws: DataLoadingError.forbiddenAddress("127.0.0.2")) {
            try await NetworkAddressPolicy().connectableAddress(for: "127.0.0.2")
        }
        await #expect(throws: DataLoadingError.forbiddenAddress("::ffff:169.254.169.254")) {
            try await NetworkAddressPolicy().connectableAddress(for: "[::ffff:169.254.169.254]")
        }
        let permitted = NetworkAddressPolicy(permittedAddresses: ["127.0.0.1", "::1"])
        #expect(try await permitted.connectableAddress(for: "localhost").ipAddress == "127.0.0.1")
        #expect(try await permitted.connectableAddress(for: "[::1]").ipAddress == "::1")
    }

    @Test func cancellationEndsTheWaitForTheResolver() async throws {
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await HostResolution.addresses(of: "localhost")
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}

import Foundation
import Testing
@testable import LoupeLoading

@Suite struct HTTPStalePermissionTests {
    @Test func windowsAreReadFromTheDirectives() {
        let permission = HTTPStalePermission(cacheControl: "max-age=60, Stale-While-Revalidate=30, stale-if-error=\"86400\"")
        #expect(permission.whileRevalidating == 30 && permission.ifError == 86400 && !permission.isForbidden)
    }

    @Test func valuesThatAreNotDeltaSecondsCountAsNotGiven() {
        for value in ["-5", "1.5", "", "0x10", "30s", " "] {
            let permission = HTTPStalePermission(cacheControl: "stale-while-revalidate=\(value), stale-if-error")
            #expect(permission.whileRevalidating == nil && permission.ifError == nil, "\(value)")
        }
        #expect(HTTPStalePermission(cacheControl: "stale-if-error=99999999999999999999999").ifError == TimeInterval(Int.max))
        #expect(HTTPStalePermission(cacheControl: nil) == HTTPStalePermission(cacheControl: ""))
    }

    @Test func mustRevalidateProxyRevalidateAndNoCacheForbidStaleUse() {
        for directive in ["must-revalidate", "proxy-revalidate", "no-cache", "No-Cache=\"Set-Cookie\""] {
            #expect(HTTPStalePermission(cacheControl: "max-age=5, stale-if-error=60, \(directive)").isForbidden, "\(directive)")
        }
        #expect(!HTTPStalePermission(cacheControl: "max-age=5, public").isForbidden)
    }

    @Test func theStoredDirectivesReadBackAsTheSamePermission() {
        for header in ["stale-while-revalidate=30, stale-if-error=600, must-revalidate", "stale-if-error=0", "max-age=1", "stale-if-error=99999999999999999999999"] {
            let permission = HTTPStalePermission(cacheControl: header)
            #expect(HTTPStalePermission(cacheControl: permission.storedDirectives) == permission, "\(header)")
        }
        #expect(HTTPStalePermission(cacheControl: "max-age=1").storedDirectives == "")
    }
}

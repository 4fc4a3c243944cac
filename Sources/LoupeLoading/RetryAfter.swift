import Foundation

/// Parses the `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
package enum RetryAfter {
    /// The delay the header asks for, in seconds from `now`; `nil` when it is neither form.
    package static func seconds(_ value: String) -> Double? {
        seconds(value, now: Date())
    }

    static func seconds(_ value: String, now: Date) -> Double? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed), seconds >= 0 { return Double(seconds) }
        guard let date = HTTPDate.parse(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

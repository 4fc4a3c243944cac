import Foundation

/// Parses the date formats HTTP allows (RFC 9110 §5.6.7): the IMF-fixdate every current server
/// sends, and the obsolete RFC 850 and asctime forms that recipients must still accept.
package enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date `text` names, or `nil` when it is not an HTTP date.
    package static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "-" }).map { $0.lowercased() }
        // IMF-fixdate "Sun, 06 Nov 1994 08:49:37 GMT" and RFC 850 "Sunday, 06-Nov-94 08:49:37 GMT"
        // split the same way: weekday, day, month, year, time, zone.
        if parts.count == 6, parts[5] == "gmt", let day = Int(parts[1]), let month = months.firstIndex(of: parts[2]),
           var year = Int(parts[3]) {
            if parts[3].count == 2 { year += year < 70 ? 2000 : 1900 }
            return date(year: year, month: month + 1, day: day, time: parts[4])
        }
        // asctime "Sun Nov  6 08:49:37 1994".
        if parts.count == 5, let month = months.firstIndex(of: parts[1]), let day = Int(parts[2]), let year = Int(parts[4]) {
            return date(year: year, month: month + 1, day: day, time: parts[3])
        }
        return nil
    }

    private static func date(year: Int, month: Int, day: Int, time: String) -> Date? {
        let clock = time.split(separator: ":").compactMap { Int($0) }
        guard clock.count == 3, (1...31).contains(day), (0...23).contains(clock[0]), (0...59).contains(clock[1]),
              (0...60).contains(clock[2]), (1...9999).contains(year) else { return nil }
        // Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + clock[0] * 3_600 + clock[1] * 60 + clock[2]
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }
    /// `date` as an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), whole seconds, rounded down.
    package static func string(from date: Date) -> String {
        let seconds = Int(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let time = seconds - days * 86_400
        // The inverse of `date(year:month:day:time:)` (Howard Hinnant's civil-from-days).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday
        let weekday = weekdays[((days % 7) + 7) % 7]
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let monthName = months[month - 1].prefix(1).uppercased() + months[month - 1].dropFirst()
        return "\(weekday), \(two(day)) \(monthName) \(year) \(two(time / 3600)):\(two(time / 60 % 60)):\(two(time % 60)) GMT"
    }
}

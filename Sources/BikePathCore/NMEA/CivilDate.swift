/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01),
/// after Howard Hinnant's public-domain `days_from_civil` / `civil_from_days`.
enum CivilDate {
    static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Earliest date accepted: anything before is a receiver that has not yet got the
    /// date (many start at 1980-01-06, the GPS epoch) or one that is 1024 weeks off
    /// after a GPS week-number rollover (1999 instead of 2019).
    static let earliestPlausibleDay = days(year: 2000, month: 1, day: 1)
    /// gpsd folds two-digit years ≥ 80 into the 1900s for the same reason.
    static let latestPlausibleDay = days(year: 2079, month: 12, day: 31)

    /// A validated day number from calendar fields.
    static func validatedDay(year: Int, month: Int, day: Int) throws(RejectReason) -> Int {
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month) else { throw .outOfRange }
        let n = days(year: year, month: month, day: day)
        guard n >= earliestPlausibleDay, n <= latestPlausibleDay else { throw .implausibleDate }
        return n
    }
}

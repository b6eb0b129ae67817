import Foundation
import RedeemCore
import Testing

@Suite struct PeriodAndDateTests {
    @Test(arguments: [("P1W", 7.0), ("P3D", 3.0), ("P2W", 14.0), ("P1W2D", 9.0)])
    func dayBasedPeriods(_ text: String, days: Double) throws {
        let start = Date(timeIntervalSince1970: 1_767_225_600)
        let end = try ISO8601Period(parsing: text).advance(start)
        #expect(end.timeIntervalSince(start) == days * 86_400)
    }

    @Test func monthsAndYearsFollowTheCalendar() throws {
        let jan31 = ISODate.parse("2026-01-31T10:00:00Z")!
        #expect(ISODate.format(try ISO8601Period(parsing: "P1M").advance(jan31)) == "2026-02-28T10:00:00Z")
        let leap = ISODate.parse("2028-02-29T00:00:00Z")!
        #expect(ISODate.format(try ISO8601Period(parsing: "P1Y").advance(leap)) == "2029-02-28T00:00:00Z")
        #expect(ISODate.format(try ISO8601Period(parsing: "P1M").advance(jan31, times: 3)) == "2026-04-30T10:00:00Z")
    }

    @Test(arguments: ["", "P", "1M", "PM", "P0M", "P1X", "P1M1Y", "PT1H", "P1.5M", "P-1M", "p1m"])
    func rejectsMalformedPeriods(_ text: String) {
        #expect(throws: ValidationError.self) { try ISO8601Period(parsing: text) }
    }

    @Test func periodDescriptionRoundTrips() throws {
        for text in ["P1W", "P1M", "P1Y", "P2Y3M", "P3D"] {
            #expect(try ISO8601Period(parsing: text).description == text)
        }
    }

    @Test func formatsMatchFoundation() {
        let formatter = ISO8601DateFormatter()
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int64.random(in: -2_000_000_000...4_000_000_000, using: &rng)))
            #expect(ISODate.format(date) == formatter.string(from: date))
        }
        // Years 1583 (Foundation's calendar is Julian before 1582) to 9999, the last second, and a fraction (dropped).
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: TimeInterval(Int64.random(in: -12_212_553_600...253_402_300_799, using: &rng)))
            #expect(ISODate.format(date) == formatter.string(from: date))
        }
        for seconds: TimeInterval in [-12_212_553_600, 253_402_300_799, 0, 86_399.999] {
            let date = Date(timeIntervalSince1970: seconds)
            #expect(ISODate.format(date) == formatter.string(from: date))
        }
        // The proleptic Gregorian calendar all the way down, as before.
        #expect(ISODate.format(Date(timeIntervalSince1970: -62_135_596_800)) == "0001-01-01T00:00:00Z")
        #expect(ISODate.format(Date(timeIntervalSince1970: -62_135_596_801)) == "0000-12-31T23:59:59Z")
    }

    @Test func parsesFractionalAndOffsetDates() {
        #expect(ISODate.parse("2026-03-01T12:00:00.250Z")?.timeIntervalSince1970 == 1_772_366_400.25)
        #expect(ISODate.parse("2026-03-01T14:00:00+02:00")?.timeIntervalSince1970 == 1_772_366_400)
        #expect(ISODate.parse("yesterday") == nil)
    }
}

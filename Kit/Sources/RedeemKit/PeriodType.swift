/// A subscription's period type (`normal`, `intro`, `trial`, `prepaid`); unknown values are kept.
public struct PeriodType: RawRepresentable, Hashable, Sendable, Codable {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let normal = PeriodType(rawValue: "normal")
    public static let intro = PeriodType(rawValue: "intro")
    public static let trial = PeriodType(rawValue: "trial")
    public static let prepaid = PeriodType(rawValue: "prepaid")
}

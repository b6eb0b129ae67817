/// A coding key named at run time, for bodies whose keys are data (key kinds, an extra key beside CustomerInfo).
struct DynamicCodingKey: CodingKey {
    let stringValue: String
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    var intValue: Int? { nil }
    init?(intValue: Int) { nil }
}

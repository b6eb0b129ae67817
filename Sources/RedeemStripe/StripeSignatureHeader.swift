/// The parts of `Stripe-Signature: t=<unix>,v1=<hex>[,v1=…][,v0=…]` that are checked.
struct StripeSignatureHeader {
    let timestamp: Int64
    let v1: [String]

    /// Strict parse: every element must be `key=value`, `t` must occur once as digits.
    /// Unknown schemes (`v0`, future ones) are ignored.
    init(parsing header: String?) throws(StripeSignatureError) {
        guard let header, !header.allSatisfy(\.isWhitespace) else { throw .missingHeader }
        var timestamp: Int64?
        var v1: [String] = []
        for element in header.split(separator: ",", omittingEmptySubsequences: false) {
            let item = element.trimmingSpaces
            guard let equals = item.firstIndex(of: "=") else { throw .malformedHeader }
            let key = item[..<equals]
            let value = item[item.index(after: equals)...]
            switch key {
            case "t":
                guard timestamp == nil, !value.isEmpty, value.allSatisfy(\.isASCIIDigit),
                    let parsed = Int64(value)
                else { throw .malformedHeader }
                timestamp = parsed
            case "v1":
                v1.append(String(value))
            case "":
                throw .malformedHeader
            default:
                continue
            }
        }
        guard let timestamp else { throw .malformedHeader }
        guard !v1.isEmpty else { throw .noV1Signature }
        self.timestamp = timestamp
        self.v1 = v1
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return s
    }
}

import RedeemCore

/// A CustomerInfo body (`request_date`, `request_date_ms`, `subscriber`) plus one extra key, which RevenueCat's SDKs ignore.
struct CustomerInfoWith<Extra: Encodable & Hashable & Sendable>: Encodable, Hashable, Sendable {
    let info: CustomerInfo
    let key: String
    let extra: Extra

    init(_ info: CustomerInfo, _ key: String, _ extra: Extra) {
        self.info = info
        self.key = key
        self.extra = extra
    }

    func encode(to encoder: any Encoder) throws {
        typealias Key = DynamicCodingKey
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(info.requestDate, forKey: Key("request_date"))
        try c.encode(info.requestDateMs, forKey: Key("request_date_ms"))
        try c.encode(info.subscriber, forKey: Key("subscriber"))
        try c.encode(extra, forKey: Key(key))
    }
}

extension CustomerInfoWith: JSONWritable where Extra: JSONWritable {
    func writeJSON(to writer: inout JSONWriter) {
        writer.beginObject()
        info.writeFields(to: &writer, extra: (key, { extra.writeJSON(to: &$0) }))
        writer.endObject()
    }
}

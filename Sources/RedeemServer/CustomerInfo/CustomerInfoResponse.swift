import Foundation
import Hummingbird
import RedeemCore

/// CustomerInfo as `{"request_date", "request_date_ms", "subscriber"}`, with the subscriber already rendered:
/// byte for byte what the shared encoder writes for the whole value.
struct CustomerInfoResponse: ResponseGenerator {
    let requestDate: Date
    let subscriber: ByteBuffer

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var body = ByteBuffer()
        body.reserveCapacity(subscriber.readableBytes + 80)
        body.writeString(#"{"request_date":""# + ISODate.format(requestDate) + #"","request_date_ms":"#)
        body.writeString(String(requestDate.millisecondsSince1970))
        body.writeString(#","subscriber":"#)
        body.writeImmutableBuffer(subscriber)
        body.writeString("}")
        return Response(status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: body))
    }

    static func render(_ subscriber: CustomerInfo.Subscriber) -> ByteBuffer {
        var writer = JSONWriter()
        subscriber.writeJSON(to: &writer)
        return ByteBuffer(bytes: writer.bytes)
    }
}

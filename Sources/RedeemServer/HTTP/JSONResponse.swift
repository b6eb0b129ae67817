import Foundation
import Hummingbird
import RedeemCore

/// An `Encodable` value as a JSON response with a chosen status.
struct JSONResponse<Value: Encodable>: ResponseGenerator {
    var status: HTTPResponse.Status = .ok
    let value: Value

    init(_ value: Value, status: HTTPResponse.Status = .ok) {
        self.value = value
        self.status = status
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try JSONCoding.encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data))
        )
    }
}

/// The JSON settings every route uses: ISO-8601 UTC dates, sorted keys.
public enum JSONCoding {
    public static var encoder: JSONEncoder { AppRequestContext.sharedEncoder }

    /// Reads what `encoder` writes (and any ISO-8601 date a client sends).
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let string = try decoder.singleValueContainer().decode(String.self)
            guard let date = ISODate.parse(string) else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "expected an ISO-8601 date"))
            }
            return date
        }
        return decoder
    }
}

extension AppRequestContext {
    static let sharedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(ISODate.format(date))
        }
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}

extension Request {
    /// Decodes the JSON body; a body that is not JSON, or that misses a field, is a 400 naming the field.
    func decodeJSON<T: Decodable>(_ type: T.Type, context: AppRequestContext) async throws -> T {
        try requireJSONContentType()
        let buffer = try await body.collect(upTo: context.maxUploadSize)
        guard buffer.readableBytes > 0 else { throw APIError.badRequest("A JSON body is required.") }
        return try context.requestDecoder.decode(type, from: Data(buffer.readableBytesView))
    }

    /// A required JSON body. A request with none is a 400, as the generated routes answer it, before the media type
    /// is checked (415).
    func decodeRequiredJSON<T: Decodable>(_ type: T.Type, context: AppRequestContext) async throws -> T {
        guard JSONBodyMiddleware.hasBody(self) else { throw APIError.badRequest("A JSON body is required.") }
        return try await decodeJSON(type, context: context)
    }

    /// JSON routes read JSON only: `application/json` or a `+json` type, any parameters after it.
    func requireJSONContentType() throws {
        // HTTP's optional whitespace is spaces and tabs only; trimmed without Foundation, which cost 1.7% of the
        // server's CPU in the redemption benchmark.
        var media = headers[.contentType]?.split(separator: ";", omittingEmptySubsequences: false).first ?? ""
        while media.first == " " || media.first == "\t" { media = media.dropFirst() }
        while media.last == " " || media.last == "\t" { media = media.dropLast() }
        let type = media.lowercased()
        guard type == "application/json" || (type.hasPrefix("application/") && type.hasSuffix("+json")) else {
            throw APIError(.unsupportedMediaType, "Send the body as JSON, with Content-Type: application/json.", field: "Content-Type")
        }
    }
}

extension Parameters {
    /// A path parameter, percent-decoded; bytes that are not UTF-8 (`%C0%AF`) are a 400 naming the parameter.
    func decoded(_ name: String) throws -> String {
        let raw = try require(name)
        // Without a '%' there is nothing to decode (Foundation's decoder is slow on Linux).
        guard raw.utf8.contains(UInt8(ascii: "%")) else { return raw }
        guard let decoded = raw.removingPercentEncoding else {
            throw APIError.badRequest("'\(name)' is not valid percent-encoded UTF-8.", field: name)
        }
        return decoded
    }
}

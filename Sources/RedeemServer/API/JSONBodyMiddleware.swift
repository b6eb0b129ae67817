import Foundation
import Hummingbird

/// What the JSON routes ask of a body before a generated handler decodes it: a JSON media type (415 otherwise; a `+json`
/// type is passed on as `application/json`), at
/// most the upload limit (413), valid HTTP framing (a malformed chunk is a 400, not a 500 from inside the handler),
/// and on the admin API no top-level `null`: leaving a field out is how a PATCH keeps it and an empty string clears
/// it, so `null` would be read two ways.
struct JSONBodyMiddleware: RouterMiddleware {
    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        guard Self.hasBody(request) else { return try await next(request, context) }
        try request.requireJSONContentType()
        var request = request
        let buffer = try await request.collectBody(upTo: context.maxUploadSize)
        if request.uri.path.hasPrefix("/admin/"),
            let object = try? JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any],
            let field = object.first(where: { $0.value is NSNull })?.key
        {
            throw APIError.badRequest("Field '\(field)' must not be null; leave it out to keep its value.", field: field)
        }
        // Generated handlers match `application/json` only; a `+json` type accepted above reads the same to them.
        if request.headers[.contentType]?.lowercased().hasPrefix("application/json") == false {
            var head = request.head
            head.headerFields[.contentType] = "application/json"
            request = Request(head: head, body: request.body)
        }
        var context = context
        context.jsonBody = buffer
        return try await next(request, context)
    }

    static func hasBody(_ request: Request) -> Bool {
        if let length = request.headers[.contentLength].flatMap({ Int($0) }) { return length > 0 }
        return request.headers[.transferEncoding] != nil
    }
}

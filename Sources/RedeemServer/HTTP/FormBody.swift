import Foundation
import Hummingbird

/// An `application/x-www-form-urlencoded` body as name → value (the first of repeated names).
enum FormBody {
    static func parse(_ request: Request, limit: Int = 64 * 1024) async throws -> [String: String] {
        let buffer = try await request.body.collect(upTo: limit)
        let text = String(buffer: buffer).replacingOccurrences(of: "+", with: "%20")
        var fields: [String: String] = [:]
        for item in URLComponents(string: "?" + text)?.queryItems ?? [] where fields[item.name] == nil {
            fields[item.name] = item.value ?? ""
        }
        return fields
    }
}

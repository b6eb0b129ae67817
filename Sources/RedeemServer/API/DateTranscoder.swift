import Foundation
import OpenAPIRuntime
import RedeemCore

/// Dates on the wire as every hand-written route writes them (`ISODate`), for the generated handlers too.
public struct RedeemDateTranscoder: DateTranscoder {
    public func encode(_ date: Date) throws -> String { ISODate.format(date) }

    public func decode(_ string: String) throws -> Date {
        guard let date = ISODate.parse(string) else {
            throw UnreadableDate(text: string)
        }
        return date
    }
}

/// A date the generated handlers' decoder could not read. The decoder gives a transcoder no coding path, so the
/// answer names the value instead of the field (`decodeISODateIfPresent` names the field where a type reads its own).
struct UnreadableDate: Error {
    let text: String
}

extension Configuration {
    /// Compact JSON with sorted keys, as `JSONResponse` writes it.
    public static let redeem = Configuration(dateTranscoder: RedeemDateTranscoder(), jsonEncodingOptions: [.sortedKeys, .withoutEscapingSlashes])
}

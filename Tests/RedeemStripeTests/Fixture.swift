import Foundation
import RedeemStripe
import Testing

/// Raw Stripe event bodies under `Fixtures/`, named after their event type.
enum Fixture {
    static func data(_ name: String) throws -> Data {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    static func event(_ name: String) throws -> StripeEvent {
        try StripeEvent(json: data(name))
    }
}

extension Date {
    init(unix: Int64) { self.init(timeIntervalSince1970: TimeInterval(unix)) }
}

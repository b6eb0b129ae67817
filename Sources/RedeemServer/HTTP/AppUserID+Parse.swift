import Foundation
import RedeemCore

extension AppUserID {
    /// Validates a client-sent ID, as a 400 with RevenueCat's invalid-app-user-ID code.
    static func parse(_ string: String) throws -> AppUserID {
        // A visible ASCII character means something is left after trimming; Foundation's trim is slow on Linux.
        let hasVisibleASCII = string.utf8.contains { (0x21...0x7E).contains($0) }
        if !hasVisibleASCII && string.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw APIError(.emptyAppUserID, "The app user ID is empty.", field: "app_user_id")
        }
        do { return try AppUserID(validating: string) } catch { throw APIError.invalidAppUserID(error) }
    }
}

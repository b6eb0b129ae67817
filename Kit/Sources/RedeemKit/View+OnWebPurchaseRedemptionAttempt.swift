#if canImport(SwiftUI)
import SwiftUI

@available(iOS 14.0, macOS 11.0, tvOS 14.0, watchOS 7.0, *)
extension View {
    /// Redeems redemption links the app is opened with (custom scheme or universal link) on
    /// `Redeem.shared`, and calls `action` with each result on the main actor.
    ///
    /// Links opened before `Redeem.configure` are kept and redeemed, in order, once it runs.
    public func onWebPurchaseRedemptionAttempt(
        perform action: @escaping @MainActor @Sendable (WebPurchaseRedemptionResult) -> Void
    ) -> some View {
        onOpenURL { url in
            _ = Redeem.handle(url: url, onResult: action)
        }
    }
}
#endif

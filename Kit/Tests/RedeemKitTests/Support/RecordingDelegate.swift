@testable import RedeemKit

@MainActor
final class RecordingDelegate: RedeemDelegate {
    enum Event: Equatable {
        case will
        case did(WebPurchaseRedemptionResult)
    }

    private(set) var events: [Event] = []

    func willRedeemLink() {
        events.append(.will)
    }

    func didRedeemLink(result: WebPurchaseRedemptionResult) {
        events.append(.did(result))
    }
}

/// Receives redemption progress on the main actor, Superwall style.
///
/// For every `willRedeemLink()` there is exactly one `didRedeemLink(result:)`, including on
/// decoding errors and task cancellation.
@MainActor
public protocol RedeemDelegate: AnyObject, Sendable {
    /// A redemption is about to hit the network: show a loading state.
    func willRedeemLink()
    /// The redemption finished: hide the loading state and show the outcome.
    func didRedeemLink(result: WebPurchaseRedemptionResult)
}

extension RedeemDelegate {
    public func willRedeemLink() {}
    public func didRedeemLink(result: WebPurchaseRedemptionResult) {}
}

/// Holds the delegate weakly and lets any thread set it.
final class DelegateBox: @unchecked Sendable {
    private let lock = Locked<Void>(())
    private weak var _delegate: (any RedeemDelegate)?

    var delegate: (any RedeemDelegate)? {
        get { lock.withLock { _ in _delegate } }
        set { lock.withLock { _ in _delegate = newValue } }
    }

    /// Calls `willRedeemLink()` and returns the delegate told, so `didRedeemLink` reaches the same one.
    func willRedeem() async -> (any RedeemDelegate)? {
        await MainActor.run {
            let delegate = self.delegate
            delegate?.willRedeemLink()
            return delegate
        }
    }

    func didRedeem(_ result: WebPurchaseRedemptionResult, to delegate: (any RedeemDelegate)?) async {
        await MainActor.run { delegate?.didRedeemLink(result: result) }
    }
}

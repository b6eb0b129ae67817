import RedeemCore
import Testing

@Suite struct AssociationTests {
    let anon = AppUserID.anonymous()
    let alice = try! AppUserID(validating: "alice")
    let bob = try! AppUserID(validating: "bob")

    @Test(arguments: RestoreBehavior.allCases)
    func anonymousOnEitherSideAliases(_ behavior: RestoreBehavior) {
        for active in [true, false] {
            #expect(Association.decide(claimant: anon, owner: alice, behavior: behavior, ownerHasActiveSubscription: active) == .alias)
            #expect(Association.decide(claimant: alice, owner: anon, behavior: behavior, ownerHasActiveSubscription: active) == .alias)
            #expect(Association.decide(claimant: anon, owner: AppUserID.anonymous(), behavior: behavior, ownerHasActiveSubscription: active) == .alias)
        }
    }

    @Test func identifiedUsersFollowTheRestoreBehaviour() {
        #expect(Association.decide(claimant: alice, owner: bob, behavior: .transfer, ownerHasActiveSubscription: true) == .transfer)
        #expect(Association.decide(claimant: alice, owner: bob, behavior: .transferIfNoActiveSubscription, ownerHasActiveSubscription: false) == .transfer)
        #expect(Association.decide(claimant: alice, owner: bob, behavior: .transferIfNoActiveSubscription, ownerHasActiveSubscription: true) == .refuse)
        #expect(Association.decide(claimant: alice, owner: bob, behavior: .keepWithOriginal, ownerHasActiveSubscription: false) == .refuse)
    }
}

import Foundation
import RedeemCore
import Testing

@Suite struct TeamRulesTests {
    static let now = ISODate.parse("2026-06-01T00:00:00Z")!

    static func op(_ id: String, _ role: OperatorRole, disabled: Bool = false, twoFactor: Bool = false) -> Operator {
        Operator(
            id: id, email: "\(id)@example.com", role: role, createdAt: now, disabledAt: disabled ? now : nil,
            twoFactorEnabledAt: twoFactor ? now : nil)
    }

    let owner = op("owner", .owner)
    let other = op("other", .owner)
    let helper = op("helper", .support, twoFactor: true)
    let gone = op("gone", .owner, disabled: true)

    @Test func onlyActiveOwnersManage() {
        let team = [owner, helper]
        #expect(TeamRules.refusal(.disable, by: helper, to: owner, team: team) == .notOwner)
        #expect(TeamRules.refusal(.enable, by: gone, to: helper, team: team + [gone]) == .notOwner)
        #expect(TeamRules.refusal(.disable, by: owner, to: helper, team: team) == nil)
        #expect(TeamRules.refusal(.resetTwoFactor, by: owner, to: helper, team: team) == nil)
        #expect(OperatorRole.owner.may(.manageTeam) && !OperatorRole.support.may(.manageTeam))
    }

    @Test func anOwnerCannotDisableThemselfNorTheLastOwner() {
        #expect(TeamRules.refusal(.disable, by: owner, to: owner, team: [owner, other]) == .yourself)
        #expect(TeamRules.refusal(.disable, by: owner, to: other, team: [owner, other]) == nil)
        // A disabled owner does not count: demoting the only active one is refused, themself included.
        #expect(TeamRules.refusal(.changeRole(.support), by: owner, to: owner, team: [owner, gone, helper]) == .lastOwner)
        #expect(TeamRules.refusal(.changeRole(.support), by: owner, to: owner, team: [owner, other]) == nil)
        #expect(TeamRules.refusal(.changeRole(.owner), by: owner, to: helper, team: [owner, helper]) == nil)
        // Demoting a disabled owner removes no active one.
        #expect(TeamRules.refusal(.changeRole(.support), by: owner, to: gone, team: [owner, gone]) == nil)
    }

    @Test func changesThatChangeNothingAreSaid() {
        #expect(TeamRules.refusal(.enable, by: owner, to: helper, team: [owner, helper]) == .alreadyAsked)
        #expect(TeamRules.refusal(.enable, by: owner, to: gone, team: [owner, gone]) == nil)
        #expect(TeamRules.refusal(.disable, by: owner, to: gone, team: [owner, gone]) == .alreadyAsked)
        #expect(TeamRules.refusal(.changeRole(.support), by: owner, to: helper, team: [owner, helper]) == .alreadyAsked)
        #expect(TeamRules.refusal(.resetTwoFactor, by: owner, to: other, team: [owner, other]) == .alreadyAsked)
        #expect(TeamRules.refusal(.resetTwoFactor, by: owner, to: owner, team: [owner]) == .yourself)
    }

    @Test func invitationsArePendingForAWeekThenExpireAndUsedOrRevokedOnesStaySo() {
        let sent = Self.now
        let expires = sent.addingTimeInterval(TeamRules.invitationLifetime)
        #expect(TeamRules.invitationLifetime == 7 * 86_400)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: nil, revokedAt: nil, now: sent) == .pending)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: nil, revokedAt: nil, now: expires.addingTimeInterval(-1)) == .pending)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: nil, revokedAt: nil, now: expires) == .expired)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: sent, revokedAt: nil, now: sent) == .accepted)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: nil, revokedAt: sent, now: sent) == .revoked)
        #expect(TeamRules.state(expiresAt: expires, acceptedAt: sent, revokedAt: nil, now: expires.addingTimeInterval(10)) == .accepted)
    }

    @Test func resetLinksWorkOnceWithinTheirLifetime() {
        let expires = Self.now.addingTimeInterval(TeamRules.resetLinkLifetime)
        #expect(TeamRules.resetLinkLifetime == PortalRules.signInLinkLifetime)
        #expect(TeamRules.resetLinkWorks(expiresAt: expires, usedAt: nil, now: Self.now))
        #expect(!TeamRules.resetLinkWorks(expiresAt: expires, usedAt: Self.now, now: Self.now))
        #expect(!TeamRules.resetLinkWorks(expiresAt: expires, usedAt: nil, now: expires))
    }

    @Test func namesAreTrimmedAndBounded() {
        #expect(TeamRules.name("  Ada Lovelace ") == "Ada Lovelace")
        #expect(TeamRules.name("   ") == nil)
        #expect(TeamRules.name(String(repeating: "a", count: 101)) == nil)
        #expect(TeamRules.name("a\nb") == nil)
    }
}

import RedeemCore
import Testing

@Suite struct OperatorRoleTests {
    @Test func ownersMayDoEverythingAndSupportOnlyHelps() {
        #expect(OperatorAction.allCases.allSatisfy { OperatorRole.owner.may($0) })
        let support = Set(OperatorAction.allCases.filter { OperatorRole.support.may($0) })
        #expect(support == [.lookUp, .sendLink, .resendEmail, .grant, .chooseOffering])
        // A customer's addresses in full, their export and their erasure are the owner's.
        #expect(![.seeEmails, .exportCustomer, .eraseCustomer].contains { OperatorRole.support.may($0) })
    }

    @Test func sessionsEndWhenIdleTooOldOrEnded() {
        let start = ISODate.parse("2026-01-01T00:00:00Z")!
        #expect(OperatorSessionRules.isLive(createdAt: start, lastSeen: start, endedAt: nil, now: start.addingTimeInterval(60)))
        #expect(
            !OperatorSessionRules.isLive(
                createdAt: start, lastSeen: start, endedAt: nil, now: start.addingTimeInterval(OperatorSessionRules.idleTimeout)))
        let recent = start.addingTimeInterval(OperatorSessionRules.maximumAge - 10)
        #expect(!OperatorSessionRules.isLive(createdAt: start, lastSeen: recent, endedAt: nil, now: recent.addingTimeInterval(20)))
        #expect(!OperatorSessionRules.isLive(createdAt: start, lastSeen: start, endedAt: start, now: start.addingTimeInterval(1)))
    }
}

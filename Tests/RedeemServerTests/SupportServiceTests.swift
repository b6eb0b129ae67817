import Foundation
import RedeemCore
import RedeemStore
import Testing

@testable import RedeemServer

/// `SupportService`'s own decisions, over an in-memory `SupportStore`: which write each action asks for, under which
/// audit entry, and which it refuses before anything is written. The SQL behind the writes is `SupportActionsTests`'.
@Suite struct SupportServiceTests {
    static let actor = "operator:ann@example.com"
    static let publicURL = URL(string: "https://pay.example.com")!

    let store = FakeSupportStore()
    let untouched = UntouchedStores()
    let clock = ManualClock(TestServer.start)

    /// Stripe is not configured (as in the CLI without `--server`); e-mail is on when `mail`.
    func service(mail: Bool = false) throws -> SupportService {
        let settings = mail ? try MailSettings(smtpURL: "smtp://mail.example.com:587", from: "shop@example.com") : nil
        return SupportService(
            store: store, clock: clock, links: RedemptionLinkIssuer(store: untouched, publicURL: Self.publicURL),
            emailQueue: EmailQueue(store: untouched, mail: settings, mailer: nil, clock: clock), stripe: nil)
    }

    func addApp(_ id: String = "app_1", policy: RedemptionLinkPolicy = .enabled) async {
        await store.add(
            App(id: id, name: "Notes", scheme: "notes", redemptionLinkPolicy: policy, createdAt: TestServer.start, updatedAt: TestServer.start))
    }

    func purchase(
        _ id: String, appID: String = "app_1", customerID: String = "cus_1", productID: String = "pro_monthly", store: Store = .rcBilling,
        sandbox: Bool = false, expires: TimeInterval? = nil, email: String? = nil
    ) -> Purchase {
        let now = clock.now()
        return Purchase(
            id: id, appID: appID, customerID: customerID, productID: productID, store: store, isSandbox: sandbox, purchaseDate: now,
            originalPurchaseDate: now, expiresDate: expires.map { now.addingTimeInterval($0) }, storeTransactionID: "txn_\(id)", price: nil,
            email: email, createdAt: now)
    }

    func expectAudit(
        _ audit: AuditEntry?, action: String, objectType: String = "purchase", objectID: String, appID: String = "app_1",
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(audit?.actor == Self.actor, sourceLocation: sourceLocation)
        #expect(audit?.action == action, sourceLocation: sourceLocation)
        #expect(audit?.objectType == objectType, sourceLocation: sourceLocation)
        #expect(audit?.objectID == objectID, sourceLocation: sourceLocation)
        #expect(audit?.appID == appID, sourceLocation: sourceLocation)
        #expect(audit?.at == clock.now(), sourceLocation: sourceLocation)
    }

    @Test func aSandboxRefundIsAppliedHereUnderItsAuditEntryAndOnlyOnce() async throws {
        await addApp()
        await store.add(purchase("pur_sandbox", sandbox: true))
        await store.add(purchase("pur_grant", productID: "rc_promo_pro_monthly", store: .promotional, expires: 86_400))
        let service = try service()

        let outcome = try await service.refund(appID: "app_1", purchaseID: "pur_sandbox", actor: Self.actor)
        #expect(!outcome.pending)
        #expect(outcome.purchase.refundedAt == clock.now())
        let writes = await store.writes
        #expect(writes.map(\.write) == [.refund(purchaseID: "pur_sandbox")])
        expectAudit(writes.first?.audit, action: "purchase.refund", objectID: "pur_sandbox")

        // Refused before anything is written: a second refund, and a grant (revoked, never refunded).
        let again = await #expect(throws: APIError.self) { try await service.refund(appID: "app_1", purchaseID: "pur_sandbox", actor: Self.actor) }
        #expect(again?.code == ErrorCode.conflict.rawValue)
        #expect(again?.message == "This purchase is already refunded.")
        let grant = await #expect(throws: APIError.self) { try await service.refund(appID: "app_1", purchaseID: "pur_grant", actor: Self.actor) }
        #expect(grant?.message == "A granted entitlement is revoked, not refunded.")
        #expect(await store.writes.count == 1)
    }

    @Test func aStripePurchaseIsNotRefundedOrCancelledWithoutStripeAndNothingIsWritten() async throws {
        await addApp()
        await store.add(purchase("pur_stripe", store: .stripe, expires: 30 * 86_400), paymentReference: "pi_123")
        await store.add(purchase("pur_unpaid", store: .stripe, expires: 30 * 86_400))
        let service = try service()

        let cancel = { (app: String, id: String, actor: String) in try await service.cancelAtPeriodEnd(appID: app, purchaseID: id, actor: actor) }
        for attempt in [service.refund, cancel] {
            let error = await #expect(throws: APIError.self) { try await attempt("app_1", "pur_stripe", Self.actor) }
            #expect(error?.code == ErrorCode.unavailable.rawValue)
            #expect(error?.message.hasPrefix("Stripe is not configured here") == true)
        }
        // No payment reported yet: nothing to refund through Stripe, configured or not.
        let unpaid = await #expect(throws: APIError.self) { try await service.refund(appID: "app_1", purchaseID: "pur_unpaid", actor: Self.actor) }
        #expect(unpaid?.code == ErrorCode.conflict.rawValue)
        #expect(unpaid?.message.hasPrefix("Stripe has not reported a payment") == true)
        // Not even the request to Stripe is recorded: it was never made.
        #expect(await store.writes.isEmpty)
    }

    /// A new link is one token: shown only (no e-mail), or e-mailed only (no token now; the e-mail mints it).
    @Test func aNewLinkIsOneTokenShownOrEmailed() async throws {
        await addApp()
        await store.add(purchase("pur_1", sandbox: true, email: "buyer@example.com"))
        await store.add(purchase("pur_3", sandbox: true, email: nil))
        let service = try service(mail: true)

        let shown = try await service.sendNewLink(appID: "app_1", purchaseID: "pur_1", actor: Self.actor, emailing: false)
        #expect(!shown.emailed)
        let purchase = try await service.emailNewLink(appID: "app_1", purchaseID: "pur_1", actor: Self.actor)
        #expect(purchase.id == "pur_1")
        let writes = await store.writes
        try #require(writes.count == 2)
        guard case .issueLink(_, let shownHash, _, let shownEmail, _) = writes[0].write,
            case .issueLink(_, let mailedHash, _, let mailedEmail, _) = writes[1].write
        else {
            Issue.record("expected two issueLink writes, got \(writes.map(\.write))")
            return
        }
        #expect(shownHash == SecretToken.hash(shown.link.token) && shownEmail == nil)
        #expect(mailedHash == nil && mailedEmail?.kind == .newLink && mailedEmail?.recipient == "buyer@example.com")

        let refused = await #expect(throws: APIError.self) {
            try await service.emailNewLink(appID: "app_1", purchaseID: "pur_3", actor: Self.actor)
        }
        #expect(refused?.code == ErrorCode.conflict.rawValue && refused?.message.contains("no address") == true)
        #expect(await store.writes.count == 2)
    }

    @Test func aNewLinkIsStoredOnlyAsItsTokensHashWithItsEmail() async throws {
        await addApp()
        await addApp("app_nolinks", policy: .disabled)
        await store.add(purchase("pur_1", sandbox: true, email: "buyer@example.com"))
        await store.add(purchase("pur_2", appID: "app_nolinks", email: "buyer@example.com"))
        let service = try service(mail: true)

        let new = try await service.sendNewLink(appID: "app_1", purchaseID: "pur_1", actor: Self.actor)
        let token = new.link.token
        #expect(RedemptionLink.isWellFormed(token))
        #expect(new.link.httpsURL == "https://pay.example.com/r/\(token)")
        #expect(new.link.customSchemeURL == "notes://redeem_web_purchase?redemption_token=\(token)")
        #expect(new.link.expiresAt == clock.now().addingTimeInterval(TimeInterval(App.defaultLinkLifetimeSeconds)))
        #expect(new.emailed)

        let writes = await store.writes
        try #require(writes.count == 1)
        guard case .issueLink(let purchaseID, let tokenHash, let expiresAt, let email, let quietPeriod) = writes[0].write else {
            Issue.record("expected issueLink, got \(writes[0].write)")
            return
        }
        #expect(purchaseID == "pur_1")
        #expect(tokenHash != token)
        #expect(tokenHash == SecretToken.hash(token))
        #expect(expiresAt == new.link.expiresAt)
        #expect(email?.kind == .newLink)
        #expect(email?.recipient == "buyer@example.com")
        #expect(email?.purchaseID == "pur_1")
        #expect(quietPeriod == 300)
        expectAudit(writes[0].audit, action: "purchase.link", objectID: "pur_1")

        let refused = await #expect(throws: APIError.self) {
            try await service.sendNewLink(appID: "app_nolinks", purchaseID: "pur_2", actor: Self.actor)
        }
        #expect(refused?.code == ErrorCode.conflict.rawValue)
        #expect(await store.writes.count == 1)
        // The link went to the store in the one transaction with its audit entry, not through the issuer's own write.
        #expect(await untouched.calls.isEmpty)
    }

    @Test func aGrantIsPlannedAndAuditedAndAnImpossibleOneWritesNothing() async throws {
        await addApp()
        let service = try service()

        let refused = await #expect(throws: ValidationError.self) {
            try await service.grant(
                appID: "app_1", appUserID: "user_1", entitlementID: "pro", duration: .monthly, until: clock.now().addingTimeInterval(86_400),
                actor: Self.actor)
        }
        #expect(refused?.field == "until")
        let badUser = await #expect(throws: APIError.self) {
            try await service.grant(appID: "app_1", appUserID: "null", entitlementID: "pro", duration: .monthly, until: nil, actor: Self.actor)
        }
        #expect(badUser?.code == ErrorCode.invalidAppUserID.rawValue)
        #expect(await store.writes.isEmpty)

        _ = try await service.grant(appID: "app_1", appUserID: "user_1", entitlementID: "pro", duration: .monthly, until: nil, actor: Self.actor)
        let ends = ISO8601Period(months: 1).advance(clock.now())
        let writes = await store.writes
        #expect(writes.map(\.write) == [.grant(appUserID: "user_1", productID: "rc_promo_pro_monthly", expiresDate: ends)])
        // The purchase does not exist before the write, so the entry names no object; the detail says what was granted.
        expectAudit(writes.first?.audit, action: "grant.create", objectID: "")
        #expect(writes.first?.audit.detail == "pro for user_1 until \(ISODate.format(ends))")
    }

    @Test func revokingAnEntitlementsGrantsAsksForThemAllAtOnceAudited() async throws {
        await addApp()
        let service = try service()
        try await service.revokeGrants(appID: "app_1", appUserID: "user_1", entitlementID: "pro", actor: Self.actor)
        let writes = await store.writes
        #expect(writes.map(\.write) == [.revokeGrants(appUserID: "user_1", entitlementID: "pro")])
        // Each revoked grant's entry gets its ID from the store.
        expectAudit(writes.first?.audit, action: "grant.revoke", objectID: "")
        // An app user ID that is not one is refused before anything is asked.
        await #expect(throws: (any Error).self) {
            try await service.revokeGrants(appID: "app_1", appUserID: "", entitlementID: "pro", actor: Self.actor)
        }
        #expect(await store.writes.count == 1)
    }

    @Test func emailRetriesAreAuditedAndRetryingAllNeedsTheApp() async throws {
        await addApp()
        let failed = QueuedEmail(
            id: "eml_1", appID: "app_1", purchaseID: "pur_1", kind: .receipt, recipient: "buyer@example.com", createdAt: clock.now(),
            attempts: 5)
        await store.add(failed, failed: true)
        let service = try service()

        #expect(try await service.retryEmail(appID: "app_1", emailID: "eml_1", actor: Self.actor) == failed)
        #expect(try await service.retryFailedEmails(appID: "app_1", actor: Self.actor) == 1)
        let writes = await store.writes
        #expect(writes.map(\.write) == [.retryEmail(emailID: "eml_1"), .retryFailedEmails])
        expectAudit(writes.first?.audit, action: "email.retry", objectType: "email", objectID: "eml_1")
        expectAudit(writes.last?.audit, action: "email.retry_all", objectType: "app", objectID: "app_1")

        let missing = await #expect(throws: StoreError.self) { try await service.retryFailedEmails(appID: "app_gone", actor: Self.actor) }
        #expect(missing?.isNotFound == true)
        #expect(await store.writes.count == 2)
    }
}

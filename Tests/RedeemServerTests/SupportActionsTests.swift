import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemStripe
import RedeemTestSupport
import Testing

/// Grants, revocations, transfers, cancellations, refunds and e-mail retries: through the admin API (as the CLI with
/// `--server` and the console call them), each with its event, its audit entry and its effect on CustomerInfo.
@Suite struct SupportActionsTests {
    /// Registers a webhook endpoint so events are queued; nothing delivers them here.
    static func withEndpoint(_ server: TestServer, _ app: CreatedAppKeys) async throws {
        let reply = try await server.send(
            .post, "/admin/v1/apps/\(app.id)/webhooks", key: app.secret, json: #"{"url": "https://hooks.example.com/in"}"#)
        #expect(reply.status == 201, "\(reply.body)")
    }

    /// The events queued about a purchase, oldest first, as their bodies' `event` objects.
    static func events(_ server: TestServer, _ app: CreatedAppKeys, transaction: String) async throws -> [[String: Any]] {
        try await server.deps.store.webhookDeliveries(appID: app.id, transactionID: transaction, limit: 50).reversed().map {
            let json = try JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any]
            return try #require(json?["event"] as? [String: Any])
        }
    }

    static func entitlement(_ server: TestServer, _ app: CreatedAppKeys, _ user: String, _ id: String) async throws -> [String: Any]? {
        let info = try await server.send(.get, "/v1/subscribers/\(user)", key: app.secret)
        #expect(info.status == 200)
        return try info.object().value(at: "subscriber.entitlements.\(id)") as? [String: Any]
    }

    @Test(arguments: TestDatabases.available)
    func grantsUnlockAnEntitlementUntilTheyEndOrAreRevoked(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            try await Self.withEndpoint(server, app)
            let path = "/admin/v1/apps/\(app.id)/customers/vip-1/grants"
            let granted = try await server.send(.post, path, key: app.secret, json: #"{"entitlement_id": "pro", "duration": "monthly"}"#)
            #expect(granted.status == 201, "\(granted.body)")
            let grant = try granted.object()
            #expect(grant["store"] as? String == "promotional")
            #expect(grant["product_id"] as? String == "rc_promo_pro_monthly")
            #expect(grant["expires_date"] as? String == "2026-07-01T00:00:00Z")
            let grantID = try #require(grant["id"] as? String)
            let transaction = try #require(grant["store_transaction_id"] as? String)

            // The app sees it, as RevenueCat shows promotional grants.
            let pro = try #require(try await Self.entitlement(server, app, "vip-1", "pro"))
            #expect(pro["product_identifier"] as? String == "rc_promo_pro_monthly")
            #expect(pro["expires_date"] as? String == "2026-07-01T00:00:00Z")
            let info = try await server.send(.get, "/v1/subscribers/vip-1", key: app.secret).object()
            #expect(info.value(at: "subscriber.subscriptions.rc_promo_pro_monthly.store") as? String == "promotional")
            let purchaseEvent = try #require(try await Self.events(server, app, transaction: transaction).first)
            #expect(purchaseEvent["type"] as? String == "NON_RENEWING_PURCHASE")
            #expect(purchaseEvent["store"] as? String == "PROMOTIONAL")
            #expect(purchaseEvent["period_type"] as? String == "PROMOTIONAL")
            #expect(purchaseEvent["entitlement_ids"] as? [String] == ["pro"])

            // The reserved product is not for sale and not listed; nobody can create one.
            let products = try await server.send(.get, "/admin/v1/apps/\(app.id)/products", key: app.secret)
            #expect(!products.body.contains("rc_promo"))
            let reserved = try await server.send(
                .post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: #"{"id": "rc_promo_x", "type": "non_consumable"}"#)
            #expect(reserved.status == 422)

            // Revoking ends it now, once.
            let revokePath = "/admin/v1/apps/\(app.id)/grants/\(grantID)/revoke"
            let revoked = try await server.send(.post, revokePath, key: app.secret)
            #expect(revoked.status == 200, "\(revoked.body)")
            #expect(try revoked.string("expires_date") == "2026-06-01T00:00:00Z")
            let after = try #require(try await Self.entitlement(server, app, "vip-1", "pro"))
            #expect(after["expires_date"] as? String == "2026-06-01T00:00:00Z", "expired as of the request date")
            #expect(
                try await Self.events(server, app, transaction: transaction).map { $0["type"] as? String } == [
                    "NON_RENEWING_PURCHASE", "CANCELLATION",
                ])
            #expect(try await server.send(.post, revokePath, key: app.secret).status == 409)

            // Until a date, and lifetime; a purchase is not a grant.
            let until = try await server.send(.post, path, key: app.secret, json: #"{"entitlement_id": "extra", "until": "2026-12-24T00:00:00Z"}"#)
            #expect(until.status == 201)
            #expect(try until.string("product_id") == "rc_promo_extra_custom")
            #expect(try until.string("expires_date") == "2026-12-24T00:00:00Z")
            let lifetime = try await server.send(.post, path, key: app.secret, json: #"{"entitlement_id": "pro", "duration": "lifetime"}"#)
            #expect(lifetime.status == 201)
            #expect(try lifetime.string("expires_date") == nil)
            let bought = try await server.grant(app, #"{"app_user_id": "vip-1", "product_id": "monthly"}"#)
            let boughtID = try #require(try bought.string("purchase.id"))
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/grants/\(boughtID)/revoke", key: app.secret).status == 409)

            // Bad requests say what is wrong.
            for (body, status) in [
                (#"{"entitlement_id": "pro"}"#, 422), (#"{"entitlement_id": "pro", "duration": "monthly", "until": "2026-12-24T00:00:00Z"}"#, 422),
                (#"{"entitlement_id": "pro", "until": "2026-01-01T00:00:00Z"}"#, 422),
                (#"{"entitlement_id": "pro", "duration": "fortnightly"}"#, 400),
                (#"{"entitlement_id": "nope", "duration": "daily"}"#, 404),
            ] {
                let reply = try await server.send(.post, path, key: app.secret, json: body)
                #expect(reply.status == status, "\(body): \(reply.body)")
            }
            let actions = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction).map(\.action)
            #expect(actions.filter { $0 == "grant.create" }.count == 3)
            #expect(actions.filter { $0 == "grant.revoke" }.count == 1)
            let audited = try await server.deps.store.auditLog(appID: app.id, limit: 20).filter { $0.objectID == grantID }
            #expect(Set(audited.map(\.action)) == ["grant.create", "grant.revoke"], "the grant's audit entry names the purchase it made")
            #expect(audited.allSatisfy { $0.actor.hasPrefix("key:") })
        }
    }

    @Test(arguments: TestDatabases.available)
    func transfersAndSandboxCancellationsApplyAtOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            try await Self.withEndpoint(server, app)
            let bought = try await server.grant(app, #"{"app_user_id": "old-phone", "product_id": "monthly", "is_sandbox": true}"#)
            let id = try #require(try bought.string("purchase.id"))
            let transaction = try #require(try bought.string("purchase.store_transaction_id"))
            let transfer = "/admin/v1/apps/\(app.id)/purchases/\(id)/transfer"
            // A request with no body at all reaches the handler with none: a required body is missing (400), an optional
            // one (the cancel's reason, below) is simply absent.
            let bodiless = try await server.send(.post, transfer, key: app.secret)
            #expect(bodiless.status == 400 && bodiless.body.contains("Missing required request body"), "\(bodiless.body)")
            let moved = try await server.send(.post, transfer, key: app.secret, json: #"{"app_user_id": "new-phone"}"#)
            #expect(moved.status == 200, "\(moved.body)")
            #expect(try await Self.entitlement(server, app, "new-phone", "pro") != nil)
            #expect(try await Self.entitlement(server, app, "old-phone", "pro") == nil)
            let event = try #require(try await Self.events(server, app, transaction: transaction).last)
            #expect(event["type"] as? String == "TRANSFER")
            #expect(event["transferred_from"] as? [String] == ["old-phone"])
            #expect(event["transferred_to"] as? [String] == ["new-phone"])
            #expect(try await server.send(.post, transfer, key: app.secret, json: #"{"app_user_id": "new-phone"}"#).status == 409)
            #expect(try await server.send(.post, transfer, key: app.secret, json: #"{"app_user_id": ""}"#).status == 400)

            let listed = try await server.send(.get, "/admin/v1/apps/\(app.id)/customers/new-phone/purchases", key: app.secret)
            #expect((try listed.object()["purchases"] as? [Any])?.count == 1)

            let cancel = "/admin/v1/apps/\(app.id)/purchases/\(id)/cancel"
            // The buyer's reason is optional; one not among Stripe's is refused, and nothing is cancelled.
            let unknownReason = try await server.send(.post, cancel, key: app.secret, json: #"{"feedback": "bored"}"#)
            #expect(unknownReason.status == 400, "\(unknownReason.body)")
            #expect(try await server.deps.store.purchase(appID: app.id, id: id).unsubscribeDetectedAt == nil)
            let cancelled = try await server.send(.post, cancel, key: app.secret, json: #"{"feedback": "missing_features"}"#)
            #expect(cancelled.status == 200, "\(cancelled.body)")
            #expect(try cancelled.string("unsubscribe_detected_at") == "2026-06-01T00:00:00Z")
            #expect(try cancelled.string("cancellation_feedback") == "missing_features")
            #expect(try await Self.entitlement(server, app, "new-phone", "pro") != nil, "access lasts until the period ends")
            #expect(try await Self.events(server, app, transaction: transaction).last?["type"] as? String == "CANCELLATION")
            #expect(try await server.send(.post, cancel, key: app.secret).status == 409)
            // Resumed before the period ends: it renews again (`UNCANCELLATION`); a second resume has nothing to undo.
            let resume = "/admin/v1/apps/\(app.id)/purchases/\(id)/resume"
            let resumed = try await server.send(.post, resume, key: app.secret)
            #expect(resumed.status == 200, "\(resumed.body)")
            #expect(try resumed.string("unsubscribe_detected_at") == nil && (try resumed.string("cancellation_feedback")) == nil)
            #expect(try await Self.events(server, app, transaction: transaction).last?["type"] as? String == "UNCANCELLATION")
            let twice = try await server.send(.post, resume, key: app.secret)
            #expect(twice.status == 409 && twice.body.contains("already renews"), "\(twice.body)")
            let lifetime = try await server.grant(app, #"{"app_user_id": "new-phone", "product_id": "lifetime", "is_sandbox": true}"#)
            let lifetimeID = try #require(try lifetime.string("purchase.id"))
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(lifetimeID)/cancel", key: app.secret).status == 409)
            let actions = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction).map(\.action)
            #expect(actions.sorted() == ["purchase.cancel", "purchase.resume", "purchase.transfer"])

            // The purchase's record shows its links, e-mails and events.
            let detail = try await server.send(.get, "/admin/v1/apps/\(app.id)/purchases/\(id)", key: app.secret).object()
            #expect((detail["webhook_deliveries"] as? [Any])?.count == 4)
            #expect((detail["redemption_links"] as? [Any])?.count == 1)
            #expect(detail["emails"] is [Any])
        }
    }

    /// Stripe purchases are refunded and cancelled through Stripe's API (a fake on loopback); the change lands when
    /// Stripe's webhook arrives.
    @Test(arguments: TestDatabases.available) func stripePurchasesAreRefundedAndCancelledThroughStripe(_ backend: TestBackend) async throws {
        let recorded = NIOLockedValueBox<[(path: String, form: String, key: String?)]>([])
        let router = Router()
        for path in ["/v1/refunds", "/v1/subscriptions/{id}"] {
            router.post(RouterPath(path)) { request, _ -> Response in
                let body = String(buffer: try await request.body.collect(upTo: 1 << 16))
                recorded.withLockedValue { $0.append((request.uri.path, body, request.headers[HTTPField.Name("Idempotency-Key")!])) }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: #"{"id": "re_1"}"#)))
            }
        }
        let fake = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await fake.test(.live) { client in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: URL(string: "http://127.0.0.1:\(try #require(client.port))")!)
            try await TestServer.with(backend, stripeWebhookSecret: StripeWebhookTests.secret, stripe: stripe) { server in
                let app = try await server.createAppWithCatalog()
                let paid = StripeWebhookTests.session(
                    "one", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_one")
                #expect(try await StripeWebhookTests.post(server, paid).status == 200)
                let sub = StripeWebhookTests.session(
                    "two", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_two", paymentIntent: nil)
                #expect(try await StripeWebhookTests.post(server, sub).status == 200)
                let oneTime = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_one"))
                let subscription = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_two"))

                let refund = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(oneTime.id)/refund", key: app.secret)
                #expect(refund.status == 202, "\(refund.body)")
                #expect(try refund.string("refunded_at") == nil, "not refunded until Stripe says so")
                let call = try #require(recorded.withLockedValue { $0.first })
                #expect(call.path == "/v1/refunds")
                #expect(call.form.contains("payment_intent=pi_one"))
                #expect(call.key == "redeem-refund-\(oneTime.id)", "a repeat asks Stripe with the same key, so it refunds once")
                #expect(try await StripeWebhookTests.post(server, StripeWebhookTests.refund("r1", paymentIntent: "pi_one")).status == 200)
                #expect(try await server.deps.store.purchase(appID: app.id, id: oneTime.id).refundedAt != nil)

                // A subscription's refund needs its latest payment, which Stripe reports on the invoice.
                let early = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(subscription.id)/refund", key: app.secret)
                #expect(early.status == 409)
                let invoice = StripeWebhookTests.invoice(
                    "i1", type: "invoice.paid", subscription: "sub_two", reason: "subscription_create", periodEnd: TestServer.start + 30 * 86_400
                ).replacingOccurrences(of: #""billing_reason""#, with: #""payment_intent": "pi_two", "billing_reason""#)
                #expect(try await StripeWebhookTests.post(server, invoice).status == 200)
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(subscription.id)/refund", key: app.secret).status == 202)
                #expect(recorded.withLockedValue { $0.last?.form.contains("payment_intent=pi_two") } == true)

                let cancel = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(subscription.id)/cancel", key: app.secret)
                #expect(cancel.status == 202, "\(cancel.body)")
                let cancelCall = try #require(recorded.withLockedValue { $0.last })
                #expect(cancelCall.path == "/v1/subscriptions/sub_two")
                #expect(cancelCall.form == "cancel_at_period_end=true")
                let updated = StripeWebhookTests.subscription(
                    "u1", type: "customer.subscription.updated", subscription: "sub_two", cancelAtPeriodEnd: true)
                #expect(try await StripeWebhookTests.post(server, updated).status == 200)
                #expect(try await server.deps.store.purchase(appID: app.id, id: subscription.id).unsubscribeDetectedAt != nil)
                // Resumed the same way: Stripe is asked, and its update applies it.
                let resume = try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(subscription.id)/resume", key: app.secret)
                #expect(resume.status == 202, "\(resume.body)")
                #expect(try resume.string("unsubscribe_detected_at") != nil, "still set to end until Stripe says otherwise")
                let resumeCall = try #require(recorded.withLockedValue { $0.last })
                #expect(resumeCall.path == "/v1/subscriptions/sub_two" && resumeCall.form == "cancel_at_period_end=false&cancel_at=")
                let resumedEvent = StripeWebhookTests.subscription(
                    "u2", type: "customer.subscription.updated", subscription: "sub_two", cancelAtPeriodEnd: false)
                #expect(try await StripeWebhookTests.post(server, resumedEvent).status == 200)
                #expect(try await server.deps.store.purchase(appID: app.id, id: subscription.id).unsubscribeDetectedAt == nil)
                let actions = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction).map(\.action)
                #expect(actions.sorted() == ["purchase.cancel", "purchase.refund", "purchase.refund", "purchase.resume"])
            }
        }
    }

    /// A failed e-mail is sent again on request; a sent one is not.
    @Test(arguments: TestDatabases.available)
    func failedEmailsCanBeRetried(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let bought = try await server.grant(app, #"{"app_user_id": "mail-1", "product_id": "lifetime", "email": "mail1@example.com"}"#)
            let purchaseID = try #require(try bought.string("purchase.id"))
            let queued = QueuedEmail(
                id: "eml_test1", appID: app.id, purchaseID: purchaseID, kind: .receipt, recipient: "mail1@example.com", createdAt: TestServer.start)
            #expect(try await server.deps.store.enqueueEmail(queued, quietPeriod: 0))
            try await server.deps.store.markEmailFailed(id: "eml_test1", error: "550 mailbox unavailable", retryAt: nil, at: TestServer.start)
            let detail = try await server.send(.get, "/admin/v1/apps/\(app.id)/purchases/\(purchaseID)", key: app.secret).object()
            let email = try #require((detail["emails"] as? [[String: Any]])?.first)
            #expect(email["state"] as? String == "failed")
            #expect(email["last_error"] as? String == "550 mailbox unavailable")
            let retry = "/admin/v1/apps/\(app.id)/emails/eml_test1/retry"
            let retried = try await server.send(.post, retry, key: app.secret)
            #expect(retried.status == 200, "\(retried.body)")
            #expect(try retried.string("state") == "retrying")
            let due = try await server.deps.store.claimDueEmails(now: TestServer.start, lease: 60, limit: 10)
            #expect(due.map(\.id) == ["eml_test1"])
            try await server.deps.store.markEmailSent(id: "eml_test1", at: TestServer.start)
            #expect(try await server.send(.post, retry, key: app.secret).status == 409)
            #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/emails/eml_nope/retry", key: app.secret).status == 404)
        }
    }

    /// Support may grant and re-send e-mails in the console; revoking, cancelling and transferring are for owners.
    @Test(arguments: TestDatabases.available)
    func theConsoleGrantsForSupportAndKeepsTheRestForOwners(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await ConsoleTests.owner(server, email: "help@example.com", role: .support)
            let bought = try await server.grant(app, #"{"app_user_id": "fan", "product_id": "monthly", "is_sandbox": true}"#)
            let purchaseID = try #require(try bought.string("purchase.id"))
            let customerID = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: AppUserID(validating: "fan"))?.id)
            let support = try await ConsoleTests.signIn(server, email: "help@example.com")
            let page = try await server.send(
                .get, "/console/apps/\(app.id)/customers/\(customerID)", key: nil, headers: [.cookie: "redeem_console=\(support)"])
            #expect(page.body.contains("Grant an entitlement"))
            #expect(!page.body.contains("Cancel at period end"), "support sees no owner actions")
            let csrf = String(try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
            let granted = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/customers/\(customerID)/grants",
                ["csrf": csrf, "entitlement_id": "extra", "duration": "until", "until": "2026-09-01"], cookie: "redeem_console=\(support)")
            #expect(granted.status == 303, "\(granted.body)")
            #expect(granted.headers[.location]?.hasSuffix("?notice=granted") == true)
            let extra = try #require(try await Self.entitlement(server, app, "fan", "extra"))
            #expect(extra["expires_date"] as? String == "2026-09-01T00:00:00Z")
            for action in ["cancel", "transfer", "revoke"] {
                let refused = try await ConsoleTests.post(
                    server, "/console/apps/\(app.id)/purchases/\(purchaseID)/\(action)", ["csrf": csrf, "confirm": "yes", "app_user_id": "x"],
                    cookie: "redeem_console=\(support)")
                #expect(refused.status == 403, "\(action)")
            }
            let owner = try await ConsoleTests.signIn(server)
            let ownerPage = try await server.send(
                .get, "/console/apps/\(app.id)/customers/\(customerID)?notice=granted", key: nil, headers: [.cookie: "redeem_console=\(owner)"])
            #expect(ownerPage.body.contains("Cancel at period end"))
            #expect(ownerPage.body.contains("Granted. The app sees the entitlement"))
            #expect(ownerPage.body.contains("rc_promo_extra_custom"))
            let ownerCSRF = String(try #require(ownerPage.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
            let unconfirmed = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": ownerCSRF], cookie: "redeem_console=\(owner)")
            #expect(unconfirmed.status == 400)
            // Support may record the reason the buyer gave on the phone; a value not listed cancels nothing.
            #expect(ownerPage.body.contains(#"<option value="customer_service">Customer service fell short</option>"#))
            let tampered = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/purchases/\(purchaseID)/cancel", ["csrf": ownerCSRF, "confirm": "yes", "feedback": "bored"],
                cookie: "redeem_console=\(owner)")
            #expect(tampered.status == 422)
            #expect(try await server.deps.store.purchase(appID: app.id, id: purchaseID).unsubscribeDetectedAt == nil)
            let cancelled = try await ConsoleTests.post(
                server, "/console/apps/\(app.id)/purchases/\(purchaseID)/cancel",
                ["csrf": ownerCSRF, "confirm": "yes", "feedback": "customer_service"], cookie: "redeem_console=\(owner)")
            #expect(cancelled.status == 303)
            let stored = try await server.deps.store.purchase(appID: app.id, id: purchaseID)
            #expect(stored.unsubscribeDetectedAt != nil && stored.cancellationFeedback == .customerService)
            let after = try await server.send(.get, cancelled.headers[.location] ?? "", key: nil, headers: [.cookie: "redeem_console=\(owner)"])
            #expect(after.body.contains(#"reason: <span class="cancel-reason">Customer service fell short</span>"#))
            #expect(after.body.contains("reason: Customer service fell short"), "in the history too")
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter(\.isSupportAction)
            #expect(Set(audit.map(\.actor)) == ["operator:owner@example.com", "operator:help@example.com"])
        }
    }

    /// A double click on the console's grant form, or a resubmit of it, grants once: every submit lands on the customer
    /// with "granted", one purchase and one audit entry stand. The same form sent for another entitlement is refused.
    @Test(arguments: TestDatabases.available)
    func submitsOfOneGrantFormGrantOnce(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            _ = try await ConsoleTests.owner(server)
            _ = try await server.grant(app, #"{"app_user_id": "fan", "product_id": "monthly", "is_sandbox": true}"#)
            let customerID = try #require(try await server.deps.store.findCustomer(appID: app.id, appUserID: AppUserID(validating: "fan"))?.id)
            let cookie = "redeem_console=\(try await ConsoleTests.signIn(server))"
            let page = try await server.send(.get, "/console/apps/\(app.id)/customers/\(customerID)", key: nil, headers: [.cookie: cookie])
            let csrf = String(try #require(page.body.firstMatch(of: /name="csrf" value="([^"]+)"/)?.1))
            let formID = try ConsoleTests.formID(page, field: "grant_id")
            let path = "/console/apps/\(app.id)/customers/\(customerID)/grants"
            let fields = ["csrf": csrf, "grant_id": formID, "entitlement_id": "extra", "duration": "weekly"]
            let replies = try await ConsoleTests.postAtOnce(server, path, fields, cookie: cookie)
            let again = try await ConsoleTests.post(server, path, fields, cookie: cookie)
            for reply in replies + [again] {
                #expect(reply.status == 303 && reply.headers[.location]?.hasSuffix("?notice=granted") == true, "\(reply.status) \(reply.body)")
            }
            let grants = try await server.deps.store.purchases(customerID: customerID).filter { $0.store == .promotional }
            #expect(grants.map(\.productID) == ["rc_promo_extra_weekly"])
            let audit = try await server.deps.store.auditLog(appID: app.id, limit: 50).filter { $0.action == "grant.create" }
            #expect(audit.map(\.objectID) == grants.map(\.id))
            // The same form for something else: refused, nothing granted.
            var other = fields
            other["entitlement_id"] = "pro"
            let refused = try await ConsoleTests.post(server, path, other, cookie: cookie)
            #expect(refused.status == 409 && refused.body.contains("This form already granted something else"), "\(refused.body)")
            other["grant_id"] = "not a form id"
            #expect(try await ConsoleTests.post(server, path, other, cookie: cookie).status == 400)
            // Another page's form grants again: the form, not the entitlement, is what is deduplicated.
            let next = try await server.send(.get, "/console/apps/\(app.id)/customers/\(customerID)", key: nil, headers: [.cookie: cookie])
            let nextID = try ConsoleTests.formID(next, field: "grant_id")
            #expect(nextID != formID)
            var second = fields
            second["grant_id"] = nextID
            #expect(try await ConsoleTests.post(server, path, second, cookie: cookie).status == 303)
            #expect(try await server.deps.store.purchases(customerID: customerID).filter { $0.store == .promotional }.count == 2)
        }
    }

    /// Every admin API write is audited under its key, in its own transaction: a refused write leaves no entry.
    @Test(arguments: TestDatabases.available)
    func adminWritesAreAuditedUnderTheirKey(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createAppWithCatalog()
            let base = "/admin/v1/apps/\(app.id)"
            for (path, body) in [
                ("/entitlements", #"{"id": "gold"}"#), ("/products", #"{"id": "yearly", "type": "subscription", "period": "P1Y"}"#),
                ("/keys", #"{"kind": "secret", "label": "billing"}"#), ("/webhooks", #"{"url": "https://hooks.example.com/in"}"#),
            ] {
                let reply = try await server.send(.post, base + path, key: app.secret, json: body)
                #expect(reply.status == 201, "\(path): \(reply.body)")
            }
            let duplicate = try await server.send(.post, base + "/entitlements", key: app.secret, json: #"{"id": "gold"}"#)
            #expect(duplicate.status == 409)
            #expect(try await server.send(.patch, base, key: server.adminKey, json: #"{"name": "Renamed"}"#).status == 200)
            let log = try await server.deps.store.auditLog(appID: app.id, limit: 50)
            let secretKeyID = try #require(try await server.deps.store.keys(appID: app.id).first { $0.kind == .secret && $0.label == nil }?.id)
            let adminKeyID = try #require(try await server.deps.store.keys(appID: nil).first?.id)
            let byAction = Dictionary(log.map { ($0.action, $0) }, uniquingKeysWith: { first, _ in first })
            for action in ["product.create", "key.create", "webhook.create"] {
                #expect(byAction[action]?.actor == "key:\(secretKeyID)", "\(action)")
            }
            #expect(log.filter { $0.action == "entitlement.create" }.count == 1, "the refused duplicate left no entry")
            #expect(byAction["entitlement.create"]?.objectID == "gold")
            #expect(byAction["app.update"]?.actor == "key:\(adminKeyID)")
            #expect(byAction["app.create"]?.actor == "key:\(adminKeyID)")
        }
    }
}

import Foundation
import Logging
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Testing

/// Each charge after the first gets its receipt, as RevenueCat's Web Billing confirms each renewal: a paid renewal
/// (`renewed`) and a free trial's first charge (`trial_converted`), read at a real SMTP server, once per charge.
@Suite struct RenewalReceiptTests {
    static func receipts(_ smtp: SMTPTestServer, to address: String, _ subject: String) throws -> [ReceivedMail] {
        try smtp.received().filter { $0.rcptTos == [address] && $0.subject.contains(subject) }
    }

    @Test(arguments: TestDatabases.available)
    func sandboxRenewalsAndTrialConversionsAreReceipted(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server)
                _ = try await WebBillingTests.pay(server, "/sandbox/p/\(app.id)/monthly/rita", email: "rita@example.com")
                _ = try await WebBillingTests.setTrial(server, app, "monthly", days: 7)
                _ = try await WebBillingTests.pay(server, "/sandbox/p/\(app.id)/monthly/tom", email: "tom@example.com")
                let worker = SandboxRenewalWorker(
                    store: server.deps.store, clock: clock, logger: Logger(label: "test"), mail: LifecycleMail(language: nil))

                // The sandbox month (5 minutes) ends: Rita's subscription renews, and she gets its receipt.
                clock.advance(by: 301)
                #expect(await worker.renewDue() >= 1)
                _ = await server.deps.mailer?.drain()
                let renewed = try Self.receipts(smtp, to: "rita@example.com", "subscription has renewed")
                #expect(renewed.count == 1)
                let text = try #require(try renewed.first?.body("text/plain"))
                #expect(text.contains("Pro Monthly has renewed at $4.99 / month"), "\(text)")
                #expect(text.contains("Paid on") && text.contains("Renews on"))
                // Nothing more is due: no second receipt.
                #expect(await worker.renewDue() == 0)
                _ = await server.deps.mailer?.drain()
                #expect(try Self.receipts(smtp, to: "rita@example.com", "subscription has renewed").count == 1)
                #expect(try Self.receipts(smtp, to: "tom@example.com", "has renewed").isEmpty, "a trial is not a renewal")

                // Tom's trial ends: its first charge is receipted as the start of his subscription.
                clock.advance(by: SandboxClock.trialLength)
                #expect(await worker.renewDue() >= 1)
                _ = await server.deps.mailer?.drain()
                let started = try Self.receipts(smtp, to: "tom@example.com", "free trial has ended")
                #expect(started.count == 1)
                let first = try #require(try started.first?.body("text/plain"))
                #expect(first.contains("Your free trial of Pro Monthly has ended and your subscription has started, at $4.99 / month"), "\(first)")
                let tom = try #require(try await server.deps.store.purchases(appID: app.id, email: "tom@example.com").first)
                #expect(try await server.deps.store.emails(purchaseID: tom.id).map(\.email.kind).contains(.trialConverted))
            }
        }
    }

    /// Stripe's renewal invoice: one receipt, however often Stripe delivers the event; none for a proration invoice.
    @Test func aStripeRenewalIsReceiptedOnce() async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(
                .sqlite, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret
            ) { server in
                let app = try await CheckoutTests.shop(server)
                let checkout = StripeWebhookTests.session(
                    "receipted", app: app.id, product: "monthly", mode: "subscription", subscription: "sub_receipted", paymentIntent: nil)
                #expect(try await StripeWebhookTests.post(server, checkout).status == 200)
                // A plan switch's proration invoice moves the period on, but its charge is not the renewal's price: no receipt.
                let prorated = StripeWebhookTests.invoice(
                    "proration1", type: "invoice.paid", subscription: "sub_receipted", reason: "subscription_update",
                    periodEnd: TestServer.start.addingTimeInterval(86_400 * 31))
                #expect(try await StripeWebhookTests.post(server, prorated).status == 200)
                let paid = StripeWebhookTests.invoice(
                    "renewal1", type: "invoice.paid", subscription: "sub_receipted", reason: "subscription_cycle",
                    periodEnd: TestServer.start.addingTimeInterval(86_400 * 61))
                for _ in 1...2 { #expect(try await StripeWebhookTests.post(server, paid).status == 200) }
                _ = await server.deps.mailer?.drain()
                let renewed = try Self.receipts(smtp, to: "payer@example.com", "subscription has renewed")
                #expect(renewed.count == 1)
                #expect(try #require(try renewed.first?.body("text/plain")).contains("August 1, 2026"), "renews again at the invoice's period end")
            }
        }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// The reminders before a renewal (`RenewalReminder`), queued by the worker's pass and read at a real SMTP server on
/// loopback: a long free trial's end and a yearly renewal, each once, in the buyer's language, with the price it renews
/// at; none while the app has them off, none for a subscription set to end.
@Suite struct RenewalReminderServerTests {
    static let day: TimeInterval = 86_400

    @Test(arguments: TestDatabases.available) func remindersBeforeALongTrialEndsAndAYearlyRenewal(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        let english = BuyerLanguages.bundled.english
        let french = try EmailLanguageTests.texts("fr")
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(
                backend, clock: clock, mail: try EmailFlowTests.settings(port: smtp.port), stripeWebhookSecret: StripeWebhookTests.secret
            ) { server in
                let app = try await server.createAppWithCatalog()
                let annual = #"{"id": "annual", "type": "subscription", "period": "P1Y", "display_name": "Pro Annual", "entitlements": ["pro"]}"#
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: annual).status == 201)
                let yearly = try await server.grant(
                    app,
                    #"{"app_user_id": "ana", "product_id": "annual", "email": "ana@example.com", "store": "rc_billing", "language": "fr", "price": {"amount": "49.99", "currency": "USD"}}"#
                )
                let yearlyID = try #require(try yearly.string("purchase.id"))
                let leaving = try await server.grant(
                    app, #"{"app_user_id": "leo", "product_id": "annual", "email": "leo@example.com", "store": "rc_billing", "is_sandbox": true}"#)
                let leavingID = try #require(try leaving.string("purchase.id"))
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/purchases/\(leavingID)/cancel", key: app.secret).status == 200)
                // Stripe trials: 60 days (reminded), 14 days (too short to need it).
                for (id, days) in [("tr60", 60), ("tr14", 14)] {
                    let session = StripeWebhookTests.session(
                        id, app: app.id, product: "monthly", mode: "subscription", subscription: "sub_\(id)", paymentIntent: nil
                    ).replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_trial_days": "\#(days)""#)
                    #expect(try await StripeWebhookTests.post(server, session).status == 200)
                }
                let trial = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "sub_tr60"))
                #expect(trial.periodType == .trial)
                _ = await server.deps.mailer?.drain()
                let sentBefore = try smtp.received().count
                let reminders = try #require(server.deps.reminders)

                // 55 days on, the long trial has 5 days left; the app sends no reminders until it turns them on.
                clock.advance(by: 55 * Self.day)
                #expect(await reminders.pass() == 0)
                let on = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"renewal_reminders": true}"#)
                let turnedOn = try on.object()["renewal_reminders"] as? Bool
                #expect(on.status == 200 && turnedOn == true, "\(on.body)")
                #expect(await reminders.pass() == 1)
                #expect(await reminders.pass() == 0, "once")
                #expect(await server.deps.mailer?.drain() == 1)
                let trialMail = try #require(try smtp.received().last)
                #expect(trialMail.rcptTos == ["payer@example.com"])
                #expect(trialMail.subject == english.format("mail.trial_ending.subject", ["appName": "Test App", "date": "July 31, 2026"]))
                let trialText = try #require(trialMail.body("text/plain"))
                #expect(trialText.contains("Then it renews at $4.99 / month until you cancel."), "\(trialText)")
                #expect(trialText.contains("Trial ends: July 31, 2026") && trialText.contains("Manage your subscription:"), "\(trialText)")

                // 340 days in, the yearly renewal is 25 days off: its reminder, in French; none for the one set to end.
                clock.advance(by: 285 * Self.day)
                #expect(await reminders.pass() == 1)
                #expect(await server.deps.mailer?.drain() == 1)
                let renewal = try #require(try smtp.received().last)
                #expect(renewal.rcptTos == ["ana@example.com"])
                #expect(renewal.subject == french.format("mail.renewal_reminder.subject", ["appName": "Test App", "date": "1 juin 2027"]))
                let renewalText = try #require(renewal.body("text/plain"))
                #expect(
                    renewalText.contains("\(french["mail.notice.renews_on"]) : 1 juin 2027")
                        || renewalText.contains("\(french["mail.notice.renews_on"]): 1 juin 2027"), "\(renewalText)")
                #expect(renewalText.contains("Pro Annual") && renewalText.contains("49,99"), "\(renewalText)")
                #expect(try await server.deps.store.emails(purchaseID: yearlyID).map(\.email.kind) == [.renewalReminder])
                #expect(try await server.deps.store.emails(purchaseID: leavingID).map(\.email.kind) == [.renewalOff], "no reminder once set to end")

                // Ten days later the window is still open (15 days left): nothing more.
                clock.advance(by: 10 * Self.day)
                #expect(await reminders.pass() == 0)
                #expect(try smtp.received().count - sentBefore == 2)
            }
        }
    }

    /// Subscriptions that are never reminded of (a weekly one expiring first) do not crowd out a due yearly one, however
    /// few purchases a page reads.
    @Test(arguments: TestDatabases.available) func otherSubscriptionsDoNotCrowdOutADueOne(_ backend: TestBackend) async throws {
        let clock = ManualClock(TestServer.start)
        try await TestServer.with(backend, clock: clock) { server in
            let app = try await server.createApp(#"{"name": "Test App", "renewal_reminders": true}"#)
            for product in [
                #"{"id": "annual", "type": "subscription", "period": "P1Y", "entitlements": ["pro"]}"#,
                #"{"id": "weekly", "type": "subscription", "period": "P1W", "entitlements": ["pro"]}"#,
            ] {
                #expect(try await server.send(.post, "/admin/v1/apps/\(app.id)/products", key: app.secret, json: product).status == 201)
            }
            let yearly = try await server.grant(
                app, #"{"app_user_id": "ana", "product_id": "annual", "email": "ana@example.com", "store": "rc_billing"}"#)
            let yearlyID = try #require(try yearly.string("purchase.id"))
            clock.advance(by: 340 * Self.day)
            for user in ["w1", "w2", "w3"] {
                _ = try await server.grant(
                    app, #"{"app_user_id": "\#(user)", "product_id": "weekly", "email": "\#(user)@example.com", "store": "rc_billing"}"#)
            }
            #expect(try await server.deps.store.queueRenewalReminders(now: clock.now(), limit: 2) == 1)
            #expect(try await server.deps.store.emails(purchaseID: yearlyID).map(\.email.kind) == [.renewalReminder])
            #expect(try await server.deps.store.queueRenewalReminders(now: clock.now(), limit: 2) == 0, "once")
        }
    }

    /// The console's settings turn them on with a ticked box and off with an unticked one.
    @Test(arguments: TestDatabases.available) func theConsolesBoxTurnsThemOnAndOff(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(page.body.contains(#"<input type="checkbox" name="renewal_reminders" value="yes" aria-describedby"#), "unticked at first")
            var fields = BrandingPagesTests.settingsFields(csrf: try ConsoleOperationsTests.csrf(page))
            fields["renewal_reminders"] = "yes"
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner).status == 303)
            #expect(try await server.deps.store.app(id: app.id).renewalReminders)
            let ticked = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(ticked.body.contains(#"name="renewal_reminders" value="yes" checked"#))
            fields["renewal_reminders"] = nil
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner).status == 303)
            #expect(try await !server.deps.store.app(id: app.id).renewalReminders, "an unticked box turns them off")
        }
    }

    /// Off without e-mail: no worker, so nothing is queued to go out once SMTP is set.
    @Test func noWorkerWithoutEmail() async throws {
        try await TestServer.with(.sqlite) { server in #expect(server.deps.reminders == nil) }
    }
}

import Foundation
import HTTPTypes
import RedeemCore
import RedeemStripe
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// An app's terms of use and privacy policy: set through the admin API and the console, linked at the foot of its
/// buyer pages and e-mails, named beside its pay buttons and above Stripe Checkout's.
@Suite struct LegalLinksTests {
    static let terms = "https://shop.example.com/terms?v=2&lang=en"
    static let privacy = "https://shop.example.com/privacy"
    static var both: String { #", "terms_url": "\#(terms)", "privacy_url": "\#(privacy)""# }

    @Test(arguments: TestDatabases.available)
    func pagesLinkTheTermsAndNameThemBesideThePayButtons(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server, settings: Self.both)
            let stored = try await server.deps.store.app(id: app.id)
            #expect(stored.termsURL == Self.terms && stored.privacyURL == Self.privacy)
            let shown = try await server.send(.get, "/admin/v1/apps/\(app.id)", key: app.secret)
            #expect(try shown.string("terms_url") == Self.terms && shown.string("privacy_url") == Self.privacy)

            let escapedTerms = Self.terms.replacingOccurrences(of: "&", with: "&amp;")
            let checkout = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil)
            #expect(checkout.status == 200)
            #expect(
                checkout.body.contains(
                    #"<p class="legal"><a href="\#(escapedTerms)">Terms of Use</a><a href="\#(Self.privacy)">Privacy Policy</a></p>"#))
            #expect(
                checkout.body.contains(
                    #"By continuing, you agree to the <a href="\#(escapedTerms)">Terms of Use</a> and acknowledge the <a href="\#(Self.privacy)">Privacy Policy</a>."#
                ), "the consent line, with the URL escaped as any value")
            // In the buyer's language.
            let german = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil, headers: [.acceptLanguage: "de-DE"])
            #expect(german.body.contains(#"Mit dem Fortfahren stimmst du den <a href="\#(escapedTerms)">Nutzungsbedingungen</a> zu"#))

            // The offer page's claim form says it too; the page that only asks for a code links the terms at its foot.
            let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "WELCOME", cap: 5)
            let claim = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=welcome", key: nil)
            #expect(claim.body.contains("Claim offer") && claim.body.contains("By continuing, you agree to the"))
            let ask = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)", key: nil)
            #expect(ask.body.contains(#"<p class="legal">"#) && !ask.body.contains("By continuing"))
            for path in ["/account/\(app.id)", "/sandbox/redeem?id=\(app.id)"] {
                #expect(try await server.send(.get, path, key: nil).body.contains(#"<a href="\#(Self.privacy)">Privacy Policy</a>"#), "\(path)")
            }

            // A privacy policy alone is linked, not agreed to.
            let cleared = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"terms_url": ""}"#)
            #expect(cleared.status == 200)
            #expect(try cleared.object()["terms_url"] == nil)
            let privacyOnly = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil)
            #expect(privacyOnly.body.contains(#"<p class="legal"><a href="\#(Self.privacy)">Privacy Policy</a></p>"#))
            #expect(!privacyOnly.body.contains("By continuing") && !privacyOnly.body.contains("Terms of Use"))

            // Neither: nothing.
            _ = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"privacy_url": ""}"#)
            let plain = try await server.send(.get, "/sandbox/p/\(app.id)/monthly", key: nil)
            #expect(!plain.body.contains(#"class="legal""#) && !plain.body.contains(#"class="hint consent""#))

            // Only absolute https URLs, refused by name, and nothing changes.
            for (field, value) in [("terms_url", "http://shop.example.com/terms"), ("privacy_url", "javascript:alert(1)")] {
                let refused = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"\#(field)": "\#(value)"}"#)
                #expect(refused.status == 422 && refused.body.contains(field), "\(refused.body)")
            }
            let after = try await server.deps.store.app(id: app.id)
            #expect(after.termsURL == nil && after.privacyURL == nil)
        }
    }

    @Test(arguments: TestDatabases.available)
    func theConsoleSavesThemAndKeepsARefusedForm(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let owner = try await ConsoleTests.signedInOwner(server)
            let page = try await server.send(.get, "/console/apps/\(app.id)/settings", key: nil, headers: [.cookie: owner])
            #expect(page.body.contains(#"name="terms_url""#) && page.body.contains(#"name="privacy_url""#))
            var fields = BrandingPagesTests.settingsFields(csrf: try ConsoleOperationsTests.csrf(page))
            fields["terms_url"] = "http://shop.example.com/terms"
            fields["privacy_url"] = Self.privacy
            let refused = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(refused.status == 422)
            #expect(refused.body.contains("Terms of use URL must be an absolute https URL."))
            #expect(refused.body.contains(#"value="http://shop.example.com/terms""#) && refused.body.contains(#"value="\#(Self.privacy)""#))
            #expect(try await server.deps.store.app(id: app.id).privacyURL == nil, "nothing saved")

            fields["terms_url"] = Self.terms
            let saved = try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner)
            #expect(saved.status == 303, "\(saved.body)")
            let stored = try await server.deps.store.app(id: app.id)
            #expect(stored.termsURL == Self.terms && stored.privacyURL == Self.privacy)
            #expect(!stored.requireTermsConsent)
            fields["require_terms_consent"] = "yes"
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner).status == 303)
            #expect(try await server.deps.store.app(id: app.id).requireTermsConsent)
            fields["require_terms_consent"] = nil
            #expect(try await ConsoleTests.post(server, "/console/apps/\(app.id)/settings", fields, cookie: owner).status == 303)
            #expect(try await !server.deps.store.app(id: app.id).requireTermsConsent, "an unticked box turns it off")
            // The preview shows typed values before they are saved.
            let preview = try await server.send(
                .get, "/console/apps/\(app.id)/preview/checkout?terms_url=https%3A%2F%2Fnew.example.com%2Ftos", key: nil,
                headers: [.cookie: owner])
            #expect(preview.body.contains(#"<a href="https://new.example.com/tos">Terms of Use</a>"#))
        }
    }

    /// Stripe Checkout's own terms link is the Stripe account's, shared by every app: the app's goes above the pay
    /// button (`custom_text[submit][message]`, Markdown links), in the buyer's language.
    @Test(arguments: TestDatabases.available)
    func stripeCheckoutNamesTheAppsTerms(_ backend: TestBackend) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server, settings: Self.both)
                #expect(try await server.send(.get, "/p/\(app.id)/monthly", key: nil).status == 303)
                let sent = try #require(recorded.withLockedValue { $0.last })
                #expect(
                    sent.form["custom_text[submit][message]"]
                        == "By continuing, you agree to the [Terms of Use](\(Self.terms)) and acknowledge the [Privacy Policy](\(Self.privacy)).")
                _ = try await server.send(.get, "/p/\(app.id)/monthly", key: nil, headers: [.acceptLanguage: "ja-JP"])
                #expect(recorded.withLockedValue { $0.last?.form["custom_text[submit][message]"] }?.hasPrefix("続行すると、[利用規約](") == true)

                // What would end a Markdown link is encoded, so the link still goes where it did.
                let odd = "https://shop.example.com/terms_(2026)"
                #expect(URL(string: odd) != nil)
                _ = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"terms_url": "\#(odd)", "privacy_url": ""}"#)
                _ = try await server.send(.get, "/p/\(app.id)/monthly", key: nil)
                #expect(
                    recorded.withLockedValue { $0.last?.form["custom_text[submit][message]"] }
                        == "By continuing, you agree to the [Terms of Use](https://shop.example.com/terms_%282026%29).")

                _ = try await server.send(
                    .patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"terms_url": "", "privacy_url": "\#(Self.privacy)"}"#)
                _ = try await server.send(.get, "/p/\(app.id)/monthly", key: nil)
                #expect(recorded.withLockedValue { $0.last?.form["custom_text[submit][message]"] } == nil, "a privacy policy alone is not agreed to")
            }
        }
    }

    /// The receipt's foot links both, in HTML and in plain text, read at a real SMTP server on loopback.
    @Test(arguments: TestDatabases.available)
    func emailsLinkThem(_ backend: TestBackend) async throws {
        try await SMTPTestServer.with { smtp in
            try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: smtp.port)) { server in
                let app = try await CheckoutTests.shop(server, settings: Self.both)
                _ = try await server.grant(
                    app, #"{"app_user_id": "kai", "product_id": "lifetime", "email": "kai@example.com", "send_receipt_email": true}"#)
                #expect(await server.deps.mailer?.drain() == 1)
                let mail = try #require(try smtp.received().last)
                let text = try #require(mail.body("text/plain"))
                #expect(text.contains("Terms of Use: \(Self.terms)\nPrivacy Policy: \(Self.privacy)"), "\(text)")
                let html = try #require(mail.body("text/html"))
                #expect(
                    html.contains(#"href="\#(Self.terms.replacingOccurrences(of: "&", with: "&amp;"))" style="color:#4338ca;">Terms of Use</a> · "#))
                #expect(html.contains(#"href="\#(Self.privacy)" style="color:#4338ca;">Privacy Policy</a>"#))
            }
        }
    }

    /// An app that requires consent: a box to tick before the pay and claim buttons, checked by the server too (a
    /// request without it is refused with the form as typed, and records nothing), and Stripe's own consent box.
    @Test(arguments: TestDatabases.available)
    func requiredConsentIsABoxTheServerChecks(_ backend: TestBackend) async throws {
        try await StripeCheckoutTests.withFakeStripe { base, recorded in
            let stripe = try StripeSettings(secretKey: "sk_test_123", apiBase: base)
            try await TestServer.with(backend, stripe: stripe) { server in
                let app = try await CheckoutTests.shop(server, settings: Self.both + #", "require_terms_consent": true"#)
                let page = try await server.send(.get, "/sandbox/p/\(app.id)/lifetime", key: nil)
                #expect(page.body.contains(#"<input type="checkbox" name="accept_terms" value="yes" required>"#))
                #expect(page.body.contains(#"I agree to the <a href="\#(Self.terms.replacingOccurrences(of: "&", with: "&amp;"))">Terms of Use</a>"#))
                #expect(!page.body.contains("By continuing"), "a box, not a line")
                let checkout = try CheckoutTests.checkoutID(page)

                let unticked = try await server.send(
                    .post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: "email=kai%40example.com&checkout_id=\(checkout)",
                    headers: CheckoutTests.form)
                #expect(unticked.status == 422 && unticked.headers[.contentType]?.hasPrefix("text/html") == true)
                #expect(unticked.body.contains("Please agree to the Terms of Use to continue."))
                #expect(unticked.body.contains(#"value="kai@example.com""#), "what was typed is kept")
                #expect(unticked.body.contains(#"name="accept_terms" value="yes" required aria-invalid="true""#))
                #expect(try await server.deps.store.purchases(appID: app.id, email: "kai@example.com").isEmpty, "nothing recorded")

                let badAddress = try await server.send(
                    .post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: "email=kai&accept_terms=yes&checkout_id=\(checkout)",
                    headers: CheckoutTests.form)
                #expect(badAddress.status == 422 && badAddress.body.contains(#"name="accept_terms" value="yes" required checked>"#))
                #expect(!badAddress.body.contains(#"type="hidden" name="accept_terms""#), "the box is the form's own, never carried hidden")

                let ticked = try await server.send(
                    .post, "/sandbox/p/\(app.id)/lifetime", key: nil, json: "email=kai%40example.com&accept_terms=yes&checkout_id=\(checkout)",
                    headers: CheckoutTests.form)
                #expect(ticked.status == 303)
                let kai = try await server.deps.store.purchases(appID: app.id, email: "kai@example.com")
                #expect(kai.count == 1)
                // The consent is kept with the purchase as proof: when, and the terms as they were named then.
                #expect(kai.first?.termsConsent == TermsConsent(acceptedAt: server.deps.clock.now(), termsURL: Self.terms))

                // The offer page's claim: the same box, the same check.
                let offer = try await OfferCodeAPITests.offer(server, app, OfferCodeAPITests.trial)
                try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "WELCOME", cap: 5)
                let claimPage = try await server.send(.get, "/redeem?ctx=offercodes&id=\(app.id)&code=welcome", key: nil)
                #expect(claimPage.body.contains(#"name="accept_terms""#))
                let form = "ctx=offercodes&id=\(app.id)&code=welcome&claim_id=\(try OfferCodePageTests.claimID(claimPage))&email=new%40example.com"
                let refused = try await server.send(.post, "/redeem", key: nil, json: form, headers: CheckoutTests.form)
                #expect(refused.status == 422 && refused.body.contains("Please agree to the Terms of Use to continue."))
                #expect(refused.body.contains(#"value="new@example.com""#))
                #expect(try await server.deps.store.customCodes(appID: app.id, offerID: offer).first?.redemptionCount == 0)
                let claimed = try await server.landing(
                    try await server.send(.post, "/redeem", key: nil, json: form + "&accept_terms=yes", headers: CheckoutTests.form))
                #expect(claimed.status == 200 && claimed.body.contains("Thank you"))
                let claim = try #require(try await server.deps.store.purchases(appID: app.id, email: "new@example.com").first)
                #expect(claim.termsConsent == TermsConsent(acceptedAt: server.deps.clock.now(), termsURL: Self.terms), "an offer claim keeps it too")

                // Stripe Checkout's own box, its text naming the app's terms.
                #expect(try await server.send(.get, "/p/\(app.id)/monthly", key: nil).status == 303)
                let session = try #require(recorded.withLockedValue { $0.last { $0.path == "/v1/checkout/sessions" } })
                #expect(session.form["consent_collection[terms_of_service]"] == "required")
                #expect(session.form["metadata[redeem_terms_url]"] == Self.terms, "so Stripe's event can record the consent")
                #expect(
                    session.form["custom_text[terms_of_service_acceptance][message]"]
                        == "I agree to the [Terms of Use](\(Self.terms)) and acknowledge the [Privacy Policy](\(Self.privacy)).")
                #expect(session.form["custom_text[submit][message]"] == nil)

                // Consent to no terms cannot be required.
                let noTerms = try await server.send(.patch, "/admin/v1/apps/\(app.id)", key: app.secret, json: #"{"terms_url": ""}"#)
                #expect(noTerms.status == 422 && noTerms.body.contains("require_terms_consent"), "\(noTerms.body)")
            }
        }
    }

    /// Stripe Checkout's consent box, ticked: Stripe's event carries `consent.terms_of_service = accepted`, and the purchase
    /// keeps the consent with the terms Redeem named in the session's metadata, shown on the console's purchase and in
    /// the admin API. A session without it records none.
    @Test func stripesConsentIsKeptWithThePurchase() async throws {
        try await TestServer.with(.sqlite, stripeWebhookSecret: StripeWebhookTests.secret) { server in
            let app = try await server.createAppWithCatalog()
            let consented = StripeWebhookTests.session(
                "agreed", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_agreed", user: "ada"
            ).replacingOccurrences(of: #""campaign": "fall""#, with: #""redeem_terms_url": "\#(Self.terms)""#)
                .replacingOccurrences(
                    of: #""amount_total""#, with: #""consent": {"terms_of_service": "accepted", "promotions": null}, "amount_total""#)
            #expect(try await StripeWebhookTests.post(server, consented).status == 200)
            let ada = try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_agreed"))
            #expect(ada.termsConsent == TermsConsent(acceptedAt: TestServer.start, termsURL: Self.terms))
            #expect(ada.customParams["redeem_terms_url"] == nil, "Redeem's own metadata, not a link parameter")
            let plain = StripeWebhookTests.session(
                "plain", app: app.id, product: "lifetime", mode: "payment", subscription: nil, paymentIntent: "pi_plain", user: "bo")
            #expect(try await StripeWebhookTests.post(server, plain).status == 200)
            #expect(try #require(try await StripeWebhookTests.purchase(server, app, transaction: "cs_test_plain")).termsConsent == nil)

            let shown = try await server.send(.get, "/admin/v1/apps/\(app.id)/purchases/\(ada.id)", key: app.secret).object()
            #expect(shown.value(at: "purchase.terms_consent.terms_url") as? String == Self.terms)
            let owner = try await ConsoleTests.signedInOwner(server)
            let path = try await ConsoleCustomerTests.customerPath(server, appID: app.id, query: "ada", cookie: owner)
            let page = try await ConsoleCustomerTests.get(server, path, cookie: owner).body
            #expect(page.contains("<dt>Agreed to the terms</dt>"), "the console shows the record")
            #expect(page.contains(Self.terms.replacingOccurrences(of: "&", with: "&amp;")))
        }
    }

    /// A paid offer in the sandbox: agreed on the offer's page, the payment page shows the box ticked and sends it; a
    /// payment sent without it is refused and pays for nothing.
    @Test(arguments: TestDatabases.available)
    func aPaidOffersPaymentCarriesTheConsent(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await CheckoutTests.shop(server, settings: #", "terms_url": "\#(Self.privacy)/terms", "require_terms_consent": true"#)
            let offer = try await OfferCodeAPITests.offer(
                server, app,
                #"{"product_id": "monthly", "reference_name": "Half year", "payment_mode": "pay_up_front", "duration": "P6M", "price": {"amount": "9.99", "currency": "USD"}, "eligibility": ["new"]}"#
            )
            try await OfferCodeAPITests.customCode(server, app, offer: offer, code: "HALFYEAR", cap: 5)
            let page = try await server.send(.get, "/sandbox/redeem?ctx=offercodes&id=\(app.id)&code=HALFYEAR&app_user_id=buyer-7", key: nil)
            let fields =
                "ctx=offercodes&id=\(app.id)&code=HALFYEAR&claim_id=\(try OfferCodePageTests.claimID(page))&email=payer%40example.com&app_user_id=buyer-7"
            let checkout = try await server.send(.post, "/sandbox/redeem", key: nil, json: fields + "&accept_terms=yes", headers: CheckoutTests.form)
            #expect(checkout.status == 200 && checkout.body.contains(#"action="/sandbox/redeem/pay""#))
            #expect(checkout.body.contains(#"name="accept_terms" value="yes" required checked>"#), "agreed on the offer's page")
            let unticked = try await server.send(.post, "/sandbox/redeem/pay", key: nil, json: fields, headers: CheckoutTests.form)
            #expect(unticked.status == 422 && unticked.body.contains("Please agree to the Terms of Use to continue."))
            #expect(try await server.deps.store.purchases(appID: app.id, email: "payer@example.com").isEmpty)
            let paid = try await server.send(.post, "/sandbox/redeem/pay", key: nil, json: fields + "&accept_terms=yes", headers: CheckoutTests.form)
            #expect(try await server.landing(paid).status == 200, "\(paid.body)")
            #expect(try await server.deps.store.purchases(appID: app.id, email: "payer@example.com").count == 1)
        }
    }

    @Test func markdownSafeEncodesOnlyWhatEndsALink() {
        #expect(LegalLinks.markdownSafe("https://a.example/x?q=1&r=2#top") == "https://a.example/x?q=1&r=2#top")
        #expect(LegalLinks.markdownSafe("https://a.example/(x)[y] z") == "https://a.example/%28x%29%5By%5D%20z")
    }
}

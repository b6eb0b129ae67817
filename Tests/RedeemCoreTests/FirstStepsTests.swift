import Foundation
import Testing

@testable import RedeemCore

struct FirstStepsTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let newApp = App(id: "app_1", name: "Demo", scheme: "rdm-0123456789", createdAt: now, updatedAt: now)

    static func facts(
        _ app: App = newApp, products: Int = 0, priced: Int = 0, webhooks: Int = 0, mail: Bool = false, stripe: Bool = false
    )
        -> FirstStepsFacts
    {
        FirstStepsFacts(
            app: app, products: products, pricedProducts: priced, webhookEndpoints: webhooks, mailConfigured: mail, stripeConfigured: stripe)
    }

    @Test func aNewAppOnABareServerHasNothingTicked() {
        let steps = AppSetupCheck.firstSteps(Self.facts())
        #expect(steps.map(\.kind) == FirstStep.Kind.allCases)
        #expect(steps.allSatisfy { !$0.done })
        let stripe = steps.first { $0.kind == .stripe }
        #expect(stripe?.detail.hasPrefix("Sandbox only") == true)
        #expect(steps.first { $0.kind == .appLinks }?.detail.contains("rdm-0123456789://") == true)
    }

    /// Each fact ticks its own step and no other.
    @Test func eachFactTicksItsStep() {
        var configured = Self.newApp
        configured.linkPolicyChosenAt = Self.now
        configured.androidPackageName = "com.example.demo"
        configured.androidCertFingerprints = [String(repeating: "AB:", count: 31) + "AB"]
        let cases: [(FirstStepsFacts, FirstStep.Kind)] = [
            (Self.facts(products: 1), .product), (Self.facts(webhooks: 2), .webhook), (Self.facts(mail: true), .email),
            (Self.facts(stripe: true), .stripe),
        ]
        for (facts, kind) in cases {
            #expect(AppSetupCheck.firstSteps(facts).filter(\.done).map(\.kind) == [kind])
        }
        #expect(AppSetupCheck.firstSteps(Self.facts(products: 1, priced: 1)).filter(\.done).map(\.kind) == [.product, .purchaseLink])
        #expect(AppSetupCheck.firstSteps(Self.facts(configured)).filter(\.done).map(\.kind) == [.linkPolicy, .appLinks])
    }

    /// An Android package without its certificate fingerprints serves no assetlinks.json: not done.
    @Test func appLinksNeedTheWholeSet() {
        var app = Self.newApp
        app.androidPackageName = "com.example.demo"
        #expect(!AppSetupCheck.hasAppLinks(app))
        app.iosTeamID = "TEAM123456"
        #expect(!AppSetupCheck.hasAppLinks(app))
        app.iosBundleID = "com.example.demo"
        #expect(AppSetupCheck.hasAppLinks(app))
    }

    /// Choosing the policy through the settings records it; other changes do not.
    @Test func choosingThePolicyIsRecorded() throws {
        var app = Self.newApp
        var rename = AppChanges()
        rename.name = "Other"
        try rename.apply(to: &app, now: Self.now)
        #expect(app.linkPolicyChosenAt == nil)
        var policy = AppChanges()
        policy.redemptionLinkPolicy = "sandbox_only"
        try policy.apply(to: &app, now: Self.now)
        #expect(app.linkPolicyChosenAt == Self.now)
        #expect(AppSetupCheck.firstSteps(Self.facts(app)).first { $0.kind == .linkPolicy }?.detail == "Redemption links: sandbox only.")
    }
}

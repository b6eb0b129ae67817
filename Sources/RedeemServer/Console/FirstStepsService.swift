import RedeemCore
import RedeemStore

/// What `FirstStepsService` reads: the app's products and webhook endpoints.
public protocol FirstStepsStore: Sendable {
    func products(appID: String) async throws -> [Product]
    func webhookEndpoints(appID: String) async throws -> [WebhookEndpoint]
}

/// A new app's first steps: the store's facts and the server's settings, ticked by `AppSetupCheck.firstSteps`.
struct FirstStepsService: Sendable {
    let store: any FirstStepsStore
    /// Whether this server has SMTP settings and Stripe keys.
    let mailConfigured: Bool
    let stripeConfigured: Bool

    func steps(_ app: App) async throws -> [FirstStep] {
        let products = try await store.products(appID: app.id)
        let endpoints = try await store.webhookEndpoints(appID: app.id)
        return AppSetupCheck.firstSteps(
            FirstStepsFacts(
                app: app, products: products.count, pricedProducts: products.count { $0.price != nil },
                webhookEndpoints: endpoints.count, mailConfigured: mailConfigured, stripeConfigured: stripeConfigured))
    }

    /// The checklist as the console shows it (`console-first-steps`): the overview shows it until every step is done,
    /// the settings always.
    func panel(_ app: App, evenWhenComplete: Bool) async throws -> FirstStepsPanel {
        FirstStepsPanel(appID: app.id, steps: try await steps(app), evenWhenComplete: evenWhenComplete)
    }
}

/// `console-first-steps`'s model: each step, ticked or with a link to where it is done, and how many are done.
struct FirstStepsPanel: PageModel {
    struct Item: Sendable {
        let kind: String
        let title: String
        let detail: String
        let done: Bool
        let url: String
    }

    let items: [Item]
    let doneCount: Int
    let total: Int
    let complete: Bool
    let visible: Bool

    init(appID: String, steps: [FirstStep], evenWhenComplete: Bool) {
        items = steps.map { step in
            let url =
                switch step.place {
                case .products: "/console/apps/\(appID)/products"
                case .settings: "/console/apps/\(appID)/settings" + (step.kind == .linkPolicy ? "#s-policy" : step.kind == .appLinks ? "#s-team" : "")
                case .emails: "/console/apps/\(appID)/emails"
                case .webhooks: "/console/apps/\(appID)/webhooks"
                }
            return Item(kind: step.kind.rawValue, title: step.title, detail: step.detail, done: step.done, url: url)
        }
        doneCount = steps.count(where: \.done)
        total = steps.count
        complete = doneCount == total
        visible = evenWhenComplete || !complete
    }
}

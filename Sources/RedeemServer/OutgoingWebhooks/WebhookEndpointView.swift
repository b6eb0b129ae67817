import Foundation
import RedeemStore

/// An endpoint as the admin API shows it: everything but the signing secret, which is shown once, at creation.
struct WebhookEndpointView: Codable, Hashable, Sendable {
    let endpoint: WebhookEndpoint
    let showSecret: Bool

    init(_ endpoint: WebhookEndpoint, showSecret: Bool) {
        self.endpoint = endpoint
        self.showSecret = showSecret
    }

    enum Keys: String, CodingKey {
        case id, url
        case appID = "app_id"
        case authorization = "has_authorization"
        case signingSecret = "signing_secret"
        case createdAt = "created_at"
        case disabledAt = "disabled_at"
    }

    /// Generated list types are `Codable`; the API only ever writes this view, so reading it back is for them alone.
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        let secret = try c.decodeIfPresent(String.self, forKey: .signingSecret)
        let endpoint = WebhookEndpoint(
            id: try c.decode(String.self, forKey: .id), appID: try c.decode(String.self, forKey: .appID),
            url: try c.decode(String.self, forKey: .url), authorization: nil, signingSecret: secret ?? "",
            createdAt: try c.decode(Date.self, forKey: .createdAt), disabledAt: try c.decodeIfPresent(Date.self, forKey: .disabledAt))
        self.init(endpoint, showSecret: secret != nil)
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(endpoint.id, forKey: .id)
        try c.encode(endpoint.appID, forKey: .appID)
        try c.encode(endpoint.url, forKey: .url)
        try c.encode(endpoint.authorization != nil, forKey: .authorization)
        try c.encode(endpoint.createdAt, forKey: .createdAt)
        try c.encodeIfPresent(endpoint.disabledAt, forKey: .disabledAt)
        if showSecret { try c.encode(endpoint.signingSecret, forKey: .signingSecret) }
    }
}

import Foundation

/// What a key may do. Public keys reach only SDK routes.
public enum APIKeyKind: String, Codable, CaseIterable, Sendable {
    case publicSandbox = "public_sandbox"
    case publicProduction = "public_production"
    /// Per-app secret: the admin and server APIs of that app.
    case secret
    /// Instance-wide secret: every app, and creating apps.
    case admin

    public var isPublic: Bool { self == .publicSandbox || self == .publicProduction }

    public var prefix: String {
        switch self {
        case .publicSandbox: "rdm_pk_sbx_"
        case .publicProduction: "rdm_pk_prod_"
        case .secret: "rdm_sk_"
        case .admin: "rdm_admin_"
        }
    }
}

/// A stored key: never its plaintext, which is shown once at creation.
public struct APIKey: Codable, Hashable, Sendable {
    public var id: String
    public var appID: String?
    public var kind: APIKeyKind
    /// The first characters of the key, safe to show.
    public var displayPrefix: String
    /// What the key is for, as its creator named it ("iOS app", "billing server"); nil when unnamed.
    public var label: String?
    public var createdAt: Date
    public var revokedAt: Date?
    /// When a request last used it, to the minute (uses are written in batches); nil when never used.
    public var lastUsedAt: Date?

    public init(
        id: String, appID: String?, kind: APIKeyKind, displayPrefix: String, label: String? = nil, createdAt: Date, revokedAt: Date?,
        lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.appID = appID
        self.kind = kind
        self.displayPrefix = displayPrefix
        self.label = label
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
    }

    /// Labels are short, printable, single-line text.
    public static func validLabel(_ label: String?) throws(ValidationError) -> String? {
        guard let label = label?.trimmingCharacters(in: .whitespacesAndNewlines), !label.isEmpty else { return nil }
        guard label.count <= 100, !label.contains(where: { $0.isNewline || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } })
        else { throw ValidationError(field: "label", reason: "must be one line of at most 100 characters") }
        return label
    }

    enum CodingKeys: String, CodingKey {
        case id, kind, label
        case appID = "app_id"
        case displayPrefix = "display_prefix"
        case createdAt = "created_at"
        case revokedAt = "revoked_at"
        case lastUsedAt = "last_used_at"
    }
}

/// A key as generated: the plaintext (shown once) and what is stored.
public struct GeneratedAPIKey: Hashable, Sendable {
    public let plaintext: String
    public let hash: String
    public let record: APIKey

    /// `id`: the record's, new unless the request that makes the key names it (so that a repeat meets it).
    public init(appID: String?, kind: APIKeyKind, label: String? = nil, id: String = Identifier.make(prefix: "key"), now: Date) {
        let plaintext = kind.prefix + SecretToken.generate(byteCount: 24)
        self.plaintext = plaintext
        self.hash = SecretToken.hash(plaintext)
        self.record = APIKey(
            id: id, appID: appID, kind: kind,
            displayPrefix: String(plaintext.prefix(kind.prefix.count + 4)), label: label, createdAt: now, revokedAt: nil
        )
    }
}

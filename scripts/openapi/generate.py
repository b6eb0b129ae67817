"""Writes Sources/RedeemServer/Resources/openapi.json, the OpenAPI 3.1 document of every route.
Edit this file, then run `python3 scripts/openapi/generate.py`; RedeemServerTests check that the
document names exactly the routes the server registers."""
import json
import os

OUT = os.path.join(os.path.dirname(__file__), "..", "..", "Sources", "RedeemServer", "Resources", "openapi.json")


def ref(name):
    return {"$ref": f"#/components/schemas/{name}"}


def rresp(name):
    return {"$ref": f"#/components/responses/{name}"}


def pref(name):
    return {"$ref": f"#/components/parameters/{name}"}


def dt(desc=None, nullable=False):
    s = {"type": ["string", "null"] if nullable else "string", "format": "date-time"}
    if desc:
        s["description"] = desc
    s["examples"] = ["2026-01-01T00:00:00Z"] if not nullable else ["2026-01-01T00:00:00Z", None]
    return s


def s(desc=None, nullable=False, **kw):
    out = {"type": ["string", "null"] if nullable else "string"}
    if desc:
        out["description"] = desc
    out.update(kw)
    return out


def json_content(schema, example=None):
    c = {"schema": schema}
    if example is not None:
        c["example"] = example
    return {"application/json": c}


def ok(desc, schema, example=None):
    return {"description": desc, "content": json_content(schema, example)}


ISO_NOTE = "ISO-8601 UTC timestamp such as `2026-01-01T00:00:00Z` (whole seconds)."
REQ_DATE_NOTE = ("ISO-8601 timestamp: `YYYY-MM-DDTHH:MM:SS[.fff]Z` or with a `±HH:MM` offset. "
                 "Anything else is a 400 naming the field.")

ADMIN_AUTH = ("**Keys:** the instance admin key, or the secret key (`rdm_sk_…`) of the app named by `app_id`. "
              "A secret key of another app, or any public SDK key, gets 403.")

# ---------------------------------------------------------------- schemas
schemas = {}

schemas["Error"] = {
    "type": "object",
    "description": (
        "Every error body. `code` is numeric so RevenueCat's SDKs can read it:\n\n"
        "| code | status | meaning |\n|---|---|---|\n"
        "| 7000 | 400 | malformed request: no or invalid JSON body, missing or mistyped field, missing `Idempotency-Key` |\n"
        "| 7001 | 422 | a field failed validation; `field` names it |\n"
        "| 7004 | 404 | the app, product, entitlement or key does not exist |\n"
        "| 7009 | 409 | already exists, or an `Idempotency-Key` reused with a different body |\n"
        "| 7225 | 401 | missing, unknown or revoked API key |\n"
        "| 7226 | 403 | the key is valid but of the wrong kind, or belongs to another app |\n"
        "| 7256 | 400 | invalid app user ID (`field` is `app_user_id`) |\n"
        "| 7500 | 500 | unexpected server error (logged) |\n\n"
        "Errors raised by the HTTP framework itself (for example an unknown path or an unregistered method, "
        "both 404) carry the HTTP status as `code`, e.g. `{\"code\": 404, \"message\": \"Not Found\"}`."
    ),
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "integer", "description": "Redeem error code (see table).", "examples": [7001]},
        "message": {"type": "string", "description": "Human-readable explanation.",
                    "examples": ["name must be 1–100 characters"]},
        "field": {"type": "string",
                  "description": "The request field at fault, when there is one (dotted path for nested fields, "
                                 "e.g. `price.amount`; `Idempotency-Key` for the header). Omitted otherwise.",
                  "examples": ["name"]},
    },
    "additionalProperties": False,
}

schemas["Health"] = {
    "type": "object",
    "required": ["status", "database", "database_ok", "uptime_seconds"],
    "properties": {
        "status": {"type": "string", "enum": ["ok", "degraded"],
                   "description": "`ok` when the database answers `SELECT 1`, otherwise `degraded` (and HTTP 503)."},
        "database": {"type": "string", "enum": ["sqlite", "postgres"], "description": "The database engine in use."},
        "database_ok": {"type": "boolean", "description": "Whether the database answered."},
        "uptime_seconds": {"type": "integer", "minimum": 0,
                           "description": "Whole seconds since the health route was set up (process start)."},
    },
}

schemas["RedemptionLinkPolicy"] = {
    "type": "string", "enum": ["disabled", "sandbox_only", "enabled"],
    "description": "Whether redemption links are issued for the app's purchases.",
}
schemas["RestoreBehavior"] = {
    "type": "string", "enum": ["transfer", "transfer_if_no_active_subscription", "keep_with_original"],
    "description": "What happens when a purchase owned by one identified user is claimed by another.",
}
schemas["ProductType"] = {"type": "string", "enum": ["subscription", "consumable", "non_consumable"]}
schemas["APIKeyKind"] = {
    "type": "string", "enum": ["public_sandbox", "public_production", "secret", "admin"],
    "description": ("`public_sandbox` (`rdm_pk_sbx_…`) and `public_production` (`rdm_pk_prod_…`) are SDK keys; "
                    "`secret` (`rdm_sk_…`) is an app's server/admin key; `admin` (`rdm_admin_…`) is the "
                    "instance-wide key (not bound to an app)."),
}
schemas["PeriodType"] = {"type": "string", "enum": ["normal", "intro", "trial", "prepaid"]}

app_props = {
    "id": s("App ID, `app_` plus 28 hex digits (creation time, then random).", examples=["app_019a8f3c2b1e0123456789abcdef"]),
    "name": s("Display name, 1–100 characters (trimmed).", examples=["Acme"]),
    "icon_url": s("Absolute https URL, or `/assets/<file>` served by Redeem. Omitted when unset."),
    "app_store_url": s("Absolute https URL. Omitted when unset."),
    "play_store_url": s("Absolute https URL. Omitted when unset."),
    "scheme": s("Custom URL scheme for redemption links, generated at creation (`rdm-` plus 10 hex digits); "
                "read-only.", examples=["rdm-00a1b2c3d4"]),
    "ios_team_id": s("10 uppercase letters or digits. Omitted when unset."),
    "ios_bundle_id": s("Reverse-DNS identifier such as `com.example.app`. Omitted when unset."),
    "android_package_name": s("Java package name such as `com.example.app`. Omitted when unset."),
    "android_cert_fingerprints": {
        "type": "array", "items": {"type": "string", "pattern": "^([0-9A-F]{2}:){31}[0-9A-F]{2}$"},
        "description": "SHA-256 signing-certificate fingerprints, 32 colon-separated uppercase hex bytes. "
                       "Always present (possibly empty).",
    },
    "redemption_link_policy": ref("RedemptionLinkPolicy"),
    "restore_behavior": ref("RestoreBehavior"),
    "redemption_link_lifetime_seconds": {"type": "integer", "minimum": 60, "maximum": 604800,
                                         "description": "Lifetime of a redemption link, 60–604800 (default 3600)."},
    "support_email": s("E-mail address. Omitted when unset."),
    "created_at": dt(ISO_NOTE),
    "updated_at": dt(ISO_NOTE),
}
schemas["App"] = {
    "type": "object",
    "description": "One mobile app and its settings. Optional settings that are unset are omitted, not null.",
    "required": ["id", "name", "scheme", "android_cert_fingerprints", "redemption_link_policy", "restore_behavior",
                 "redemption_link_lifetime_seconds", "created_at", "updated_at"],
    "properties": app_props,
}

app_example = {
    "android_cert_fingerprints": [],
    "created_at": "2026-01-01T00:00:00Z",
    "id": "app_019a8f3c2b1e0123456789abcdef",
    "ios_bundle_id": "com.example.acme",
    "name": "Acme",
    "redemption_link_lifetime_seconds": 3600,
    "redemption_link_policy": "enabled",
    "restore_behavior": "transfer",
    "scheme": "rdm-00a1b2c3d4",
    "updated_at": "2026-01-01T00:00:00Z",
}


def clearable(desc):
    return s(desc + " An empty string clears it; omitted or null leaves it unchanged.", nullable=True)


schemas["AppChanges"] = {
    "type": "object",
    "description": ("Settings to create or update an app. Every field is optional: an omitted (or null) field "
                    "is left as it is (defaults on creation), an empty string clears an optional text setting. "
                    "`name` is required when creating. All given fields are validated before any is applied; "
                    "a bad value is a 422 naming the field. Unknown fields are ignored."),
    "properties": {
        "name": s("1–100 characters after trimming whitespace. Required on creation; cannot be cleared.",
                  nullable=True, examples=["Acme"]),
        "icon_url": clearable("Absolute https URL (at most 2048 characters), or `/assets/<file>` served by Redeem."),
        "app_store_url": clearable("Absolute https URL (at most 2048 characters)."),
        "play_store_url": clearable("Absolute https URL (at most 2048 characters)."),
        "ios_team_id": clearable("10 uppercase letters or digits."),
        "ios_bundle_id": clearable("Reverse-DNS identifier such as `com.example.app` (at most 155 characters)."),
        "android_package_name": clearable("Java package name such as `com.example.app`."),
        "android_cert_fingerprints": {
            "type": ["array", "null"], "items": {"type": "string"},
            "description": ("Replaces the whole list; `[]` clears it. Each entry is a SHA-256 fingerprint of 32 "
                            "colon-separated hex bytes (either case; stored uppercase)."),
        },
        "redemption_link_policy": {"type": ["string", "null"], "enum": ["disabled", "sandbox_only", "enabled", None],
                                   "description": "Default `enabled`."},
        "restore_behavior": {"type": ["string", "null"],
                             "enum": ["transfer", "transfer_if_no_active_subscription", "keep_with_original", None],
                             "description": "Default `transfer`."},
        "redemption_link_lifetime_seconds": {"type": ["integer", "null"], "minimum": 60, "maximum": 604800,
                                             "description": "Default 3600."},
        "support_email": clearable("E-mail address."),
    },
}

schemas["CreatedAppKeys"] = {
    "type": "object",
    "description": "The app's three keys in plaintext. They are shown only in this response; only hashes are stored.",
    "required": ["public_sandbox", "public_production", "secret"],
    "properties": {
        "public_sandbox": s("Public SDK key for sandbox builds.", examples=["rdm_pk_sbx_…"]),
        "public_production": s("Public SDK key for production builds.", examples=["rdm_pk_prod_…"]),
        "secret": s("Secret key: this app's admin routes and the server API.", examples=["rdm_sk_…"]),
    },
}
schemas["CreatedApp"] = {
    "description": "A newly created app: every `App` field plus `keys`, its keys in plaintext (shown once).",
    "allOf": [
        ref("App"),
        {"type": "object", "required": ["keys"], "properties": {"keys": ref("CreatedAppKeys")}},
    ],
}
schemas["AppList"] = {
    "type": "object", "required": ["apps"],
    "properties": {"apps": {"type": "array", "items": ref("App"),
                            "description": "Ordered by creation time, then ID."}},
}

IDENT = {"type": "string", "minLength": 1, "maxLength": 100, "pattern": "^[A-Za-z0-9._-]+$"}

schemas["Product"] = {
    "type": "object",
    "description": "Something an app sells, with the entitlements it unlocks.",
    "required": ["app_id", "id", "type", "entitlements", "created_at"],
    "properties": {
        "app_id": s(examples=["app_019a8f3c2b1e0123456789abcdef"]),
        "id": dict(IDENT, description="Product identifier.", examples=["pro_monthly"]),
        "type": ref("ProductType"),
        "period": s("ISO-8601 period such as `P1M`; present for subscriptions only (omitted otherwise)."),
        "display_name": s("Omitted when unset."),
        "entitlements": {"type": "array", "items": {"type": "string"},
                         "description": "IDs of the entitlements it unlocks, sorted, without duplicates."},
        "created_at": dt(ISO_NOTE),
    },
}
schemas["ProductInput"] = {
    "type": "object",
    "description": "A new product. Entitlement IDs that do not exist yet are created (without a display name).",
    "required": ["id", "type"],
    "properties": {
        "id": dict(IDENT, description="1–100 of `A–Z a–z 0–9 . _ -`; unique within the app (409 otherwise)."),
        "type": {"type": "string", "enum": ["subscription", "consumable", "non_consumable"],
                 "description": "Any other value is a 422."},
        "period": s("Required for `subscription`, forbidden otherwise: an ISO-8601 period `PnYnMnWnD` "
                    "(date parts only, in that order, each at most 1000, at least one non-zero), "
                    "e.g. `P1W`, `P1M`, `P1Y`, `P3D`.", nullable=True, examples=["P1M"]),
        "display_name": s("At most 200 characters.", nullable=True),
        "entitlements": {"type": ["array", "null"], "items": IDENT,
                         "description": "Entitlement IDs this product unlocks; duplicates are dropped."},
    },
}
schemas["ProductUpdate"] = {
    "type": "object",
    "description": "Changes to a product. Omitted or null fields are left as they are. `id`, `type` and `period` "
                   "cannot be changed.",
    "properties": {
        "display_name": s("At most 200 characters; an empty string clears it.", nullable=True),
        "entitlements": {"type": ["array", "null"], "items": IDENT,
                         "description": "Replaces the whole set; `[]` removes all. Unknown IDs are created."},
    },
}
schemas["ProductList"] = {
    "type": "object", "required": ["products"],
    "properties": {"products": {"type": "array", "items": ref("Product"), "description": "Ordered by ID."}},
}

schemas["Entitlement"] = {
    "type": "object",
    "description": "Access that products unlock, e.g. `pro`.",
    "required": ["app_id", "id", "created_at"],
    "properties": {
        "app_id": s(examples=["app_019a8f3c2b1e0123456789abcdef"]),
        "id": dict(IDENT, examples=["pro"]),
        "display_name": s("Omitted when unset."),
        "created_at": dt(ISO_NOTE),
    },
}
schemas["EntitlementInput"] = {
    "type": "object",
    "required": ["id"],
    "properties": {
        "id": dict(IDENT, description="1–100 of `A–Z a–z 0–9 . _ -`; unique within the app (409 otherwise, "
                                      "including entitlements created implicitly by a product)."),
        "display_name": s(nullable=True),
    },
}
schemas["EntitlementUpdate"] = {
    "type": "object",
    "description": "Sets the display name (at most 200 characters). An omitted `display_name` leaves it unchanged; "
                   "an empty string clears it.",
    "properties": {"display_name": s(nullable=True)},
}
schemas["EntitlementList"] = {
    "type": "object", "required": ["entitlements"],
    "properties": {"entitlements": {"type": "array", "items": ref("Entitlement"), "description": "Ordered by ID."}},
}

schemas["APIKey"] = {
    "type": "object",
    "description": "A stored key. The plaintext is never returned after creation.",
    "required": ["id", "kind", "display_prefix", "created_at"],
    "properties": {
        "id": s("Key ID, `key_` plus 28 hex digits (creation time, then random).", examples=["key_019a8f3c2b1e0123456789abcdef"]),
        "app_id": s("The app it belongs to; omitted for instance admin keys."),
        "kind": ref("APIKeyKind"),
        "display_prefix": s("The first characters of the key (its kind prefix plus 4), safe to show.",
                            examples=["rdm_sk_AbCd"]),
        "label": s("What the key is for, as its creator named it; omitted when unnamed.", examples=["iOS app"]),
        "created_at": dt(ISO_NOTE),
        "revoked_at": dt("When it was revoked; omitted while the key is active. " + ISO_NOTE),
    },
}
schemas["CreatedKey"] = {
    "description": "A newly created key: every `APIKey` field plus `key`, the plaintext (shown once).",
    "allOf": [
        ref("APIKey"),
        {"type": "object", "required": ["key"],
         "properties": {"key": s("The key in plaintext.", examples=["rdm_pk_sbx_…"])}},
    ],
}
schemas["KeyRequest"] = {
    "type": "object",
    "required": ["kind"],
    "properties": {"kind": {"type": "string", "enum": ["public_sandbox", "public_production", "secret"],
                            "description": "Any other value (including `admin`) is a 422."},
                   "label": {"type": "string", "maxLength": 100,
                             "description": "What the key is for (one line, at most 100 characters; 422 otherwise)."}},
}
schemas["KeyList"] = {
    "type": "object", "required": ["keys"],
    "properties": {"keys": {"type": "array", "items": ref("APIKey"),
                            "description": "All of the app's keys, revoked ones included; ordered by creation."}},
}

# -- CustomerInfo (RevenueCat wire format)
schemas["CustomerInfoPrice"] = {
    "type": "object",
    "required": ["amount", "currency"],
    "properties": {
        "amount": {"type": "number", "description": "Decimal amount, e.g. 4.99.", "examples": [4.99]},
        "currency": s("ISO-4217 code.", examples=["USD"]),
    },
}
schemas["CustomerInfoSubscription"] = {
    "type": "object",
    "description": "The latest-expiring purchase of a subscription product. Every key is always written; "
                   "unknown values are null.",
    "required": ["purchase_date", "original_purchase_date", "expires_date", "store", "is_sandbox", "period_type",
                 "ownership_type", "unsubscribe_detected_at", "billing_issues_detected_at",
                 "grace_period_expires_date", "refunded_at", "auto_resume_date", "store_transaction_id",
                 "display_name", "price", "management_url"],
    "properties": {
        "purchase_date": dt(),
        "original_purchase_date": dt(),
        "expires_date": dt("Null means it never expires.", nullable=True),
        "store": s("Where it was bought: `rc_billing`, `stripe`, `external`, `promotional` (other stored values "
                   "are passed through).", examples=["external"]),
        "is_sandbox": {"type": "boolean"},
        "period_type": ref("PeriodType"),
        "ownership_type": {"type": "string", "enum": ["PURCHASED"], "description": "Always `PURCHASED`."},
        "unsubscribe_detected_at": dt(nullable=True),
        "billing_issues_detected_at": dt(nullable=True),
        "grace_period_expires_date": dt(nullable=True),
        "refunded_at": dt(nullable=True),
        "auto_resume_date": {"type": "null", "description": "Always null."},
        "store_transaction_id": s(),
        "display_name": s("The product's display name.", nullable=True),
        "price": {"oneOf": [ref("CustomerInfoPrice"), {"type": "null"}]},
        "management_url": {"type": "null", "description": "Always null."},
    },
}
schemas["CustomerInfoTransaction"] = {
    "type": "object",
    "description": "A one-time (non-subscription) purchase. Every key is always written.",
    "required": ["id", "purchase_date", "original_purchase_date", "store", "is_sandbox", "store_transaction_id",
                 "display_name", "refunded_at", "price"],
    "properties": {
        "id": s("Redeem purchase ID (`pur_…`).", examples=["pur_019a8f3c2b1e0123456789abcdef"]),
        "purchase_date": dt(),
        "original_purchase_date": dt(),
        "store": s(examples=["external"]),
        "is_sandbox": {"type": "boolean"},
        "store_transaction_id": s(),
        "display_name": s(nullable=True),
        "refunded_at": dt(nullable=True),
        "price": {"oneOf": [ref("CustomerInfoPrice"), {"type": "null"}]},
    },
}
schemas["CustomerInfoEntitlement"] = {
    "type": "object",
    "description": "An entitlement granted by an unrefunded purchase; the one lasting longest wins. Whether it is "
                   "active is computed by the client from `expires_date` (and the grace period) against the "
                   "request date. Every key is always written.",
    "required": ["expires_date", "purchase_date", "product_identifier", "grace_period_expires_date"],
    "properties": {
        "expires_date": dt("Null means lifetime access.", nullable=True),
        "purchase_date": dt(),
        "product_identifier": s("The product that grants it.", examples=["pro_monthly"]),
        "grace_period_expires_date": dt(nullable=True),
    },
}
schemas["CustomerInfoAttribute"] = {
    "type": "object",
    "required": ["value", "updated_at_ms"],
    "properties": {"value": s(), "updated_at_ms": {"type": "integer", "format": "int64"}},
}
schemas["CustomerInfoSubscriber"] = {
    "type": "object",
    "description": "Every key is always written; unknown values are null.",
    "required": ["original_app_user_id", "original_application_version", "original_purchase_date", "first_seen",
                 "last_seen", "management_url", "subscriptions", "non_subscriptions", "entitlements",
                 "other_purchases", "subscriber_attributes"],
    "properties": {
        "original_app_user_id": s("The first app user ID this customer was seen with."),
        "original_application_version": {"type": "null", "description": "Always null."},
        "original_purchase_date": dt("Earliest original purchase date; null without purchases.", nullable=True),
        "first_seen": dt(),
        "last_seen": dt(),
        "management_url": {"type": "null", "description": "Always null."},
        "subscriptions": {"type": "object", "additionalProperties": ref("CustomerInfoSubscription"),
                          "description": "Keyed by product ID."},
        "non_subscriptions": {"type": "object",
                              "additionalProperties": {"type": "array", "items": ref("CustomerInfoTransaction")},
                              "description": "Keyed by product ID; purchases in purchase-date order."},
        "entitlements": {"type": "object", "additionalProperties": ref("CustomerInfoEntitlement"),
                         "description": "Keyed by entitlement ID. Refunded purchases grant nothing."},
        "other_purchases": {"type": "object", "additionalProperties": ref("CustomerInfoTransaction"),
                            "description": "Always empty."},
        "subscriber_attributes": {"type": "object", "additionalProperties": ref("CustomerInfoAttribute"),
                                  "description": "Always empty."},
    },
}
schemas["CustomerInfo"] = {
    "type": "object",
    "description": "RevenueCat's CustomerInfo (subscriber) wire format, built from the stored purchases.",
    "required": ["request_date", "request_date_ms", "subscriber"],
    "properties": {
        "request_date": dt("Server time of the request, whole seconds."),
        "request_date_ms": {"type": "integer", "format": "int64",
                            "description": "Server time of the request in milliseconds since 1970."},
        "subscriber": ref("CustomerInfoSubscriber"),
    },
}

customer_info_example = {
    "request_date": "2026-01-02T00:00:00Z",
    "request_date_ms": 1767312000000,
    "subscriber": {
        "entitlements": {
            "pro": {"expires_date": "2026-02-01T00:00:00Z", "grace_period_expires_date": None,
                    "product_identifier": "pro_monthly", "purchase_date": "2026-01-01T00:00:00Z"}
        },
        "first_seen": "2026-01-01T00:00:00Z",
        "last_seen": "2026-01-02T00:00:00Z",
        "management_url": None,
        "non_subscriptions": {},
        "original_app_user_id": "user-42",
        "original_application_version": None,
        "original_purchase_date": "2026-01-01T00:00:00Z",
        "other_purchases": {},
        "subscriber_attributes": {},
        "subscriptions": {
            "pro_monthly": {
                "auto_resume_date": None, "billing_issues_detected_at": None, "display_name": "Pro Monthly",
                "expires_date": "2026-02-01T00:00:00Z", "grace_period_expires_date": None, "is_sandbox": False,
                "management_url": None, "original_purchase_date": "2026-01-01T00:00:00Z",
                "ownership_type": "PURCHASED", "period_type": "normal",
                "price": {"amount": 4.99, "currency": "USD"}, "purchase_date": "2026-01-01T00:00:00Z",
                "refunded_at": None, "store": "stripe", "store_transaction_id": "pi_123",
                "unsubscribe_detected_at": None,
            }
        },
    },
}

# -- Purchases (server API)
schemas["PurchasePrice"] = {
    "type": "object",
    "description": "A price in micros: 4.99 USD is `{\"amount_micros\": 4990000, \"currency\": \"USD\"}`.",
    "required": ["amount_micros", "currency"],
    "properties": {
        "amount_micros": {"type": "integer", "format": "int64", "minimum": 0, "examples": [4990000]},
        "currency": s(examples=["USD"]),
    },
}
schemas["Purchase"] = {
    "type": "object",
    "description": ("A recorded purchase. Unset optional values are omitted, not null."),
    "required": ["id", "app_id", "customer_id", "product_id", "store", "is_sandbox", "purchase_date",
                 "original_purchase_date", "period_type", "store_transaction_id", "created_at"],
    "properties": {
        "id": s("Purchase ID, `pur_` plus 28 hex digits (creation time, then random).", examples=["pur_019a8f3c2b1e0123456789abcdef"]),
        "app_id": s(),
        "customer_id": s("Internal customer ID (`cus_…`), not the app user ID."),
        "product_id": s(),
        "store": s("`rc_billing`, `stripe`, `external` or `promotional`.", examples=["external"]),
        "is_sandbox": {"type": "boolean"},
        "purchase_date": dt(),
        "original_purchase_date": dt(),
        "expires_date": dt("Subscriptions only: the given `expires_date`, or the purchase date advanced by the "
                          "product's period. Omitted for one-time products."),
        "grace_period_expires_date": dt("Omitted when unset."),
        "period_type": ref("PeriodType"),
        "store_transaction_id": s("The given `store_transaction_id`, or a generated `txn_…` ID."),
        "price": ref("PurchasePrice"),
        "email": s("Omitted when unset."),
        "unsubscribe_detected_at": dt("Omitted when unset."),
        "billing_issues_detected_at": dt("Omitted when unset."),
        "refunded_at": dt("Omitted when unset."),
        "created_at": dt("When Redeem recorded it."),
    },
}
schemas["PriceInput"] = {
    "type": "object",
    "required": ["amount", "currency"],
    "properties": {
        "amount": {"type": ["number", "string"],
                   "description": "Non-negative decimal below 1,000,000,000, as a number or a decimal string "
                                  "(`4.99` or `\"4.99\"`); rounded to micros.",
                   "examples": ["4.99"]},
        "currency": {"type": "string", "pattern": "^[A-Z]{3}$", "description": "ISO-4217 code, uppercase.",
                     "examples": ["USD"]},
    },
}
schemas["GrantRequest"] = {
    "type": "object",
    "description": "A purchase made anywhere (e.g. your own web checkout), to be granted to an app user.",
    "required": ["app_user_id", "product_id"],
    "properties": {
        "app_user_id": s("The buyer's app user ID (same rules as the path parameter of "
                         "`GET /v1/subscribers/{app_user_id}`); the customer is created if new. "
                         "An invalid ID is a 400 with code 7256.", maxLength=100, examples=["user-42"]),
        "product_id": dict(IDENT, description="An existing product of the app (404 otherwise)."),
        "store": {"type": ["string", "null"], "enum": ["rc_billing", "stripe", "external", "promotional", None],
                  "description": "Default `external`."},
        "is_sandbox": {"type": ["boolean", "null"], "description": "Default false."},
        "purchase_date": dt("Default: now. " + REQ_DATE_NOTE, nullable=True),
        "expires_date": dt("Must be after `purchase_date`. Used for subscription products only (default: "
                           "`purchase_date` plus the product's period); ignored for one-time products. "
                           + REQ_DATE_NOTE, nullable=True),
        "period_type": {"type": ["string", "null"], "enum": ["normal", "intro", "trial", "prepaid", None],
                        "description": "Default `normal`."},
        "store_transaction_id": s("1–255 characters. Default: a generated `txn_…` ID.", nullable=True,
                                  minLength=1, maxLength=255),
        "price": {"oneOf": [ref("PriceInput"), {"type": "null"}]},
        "email": s("The buyer's e-mail address.", nullable=True, maxLength=254),
        "send_receipt_email": {"type": "boolean", "description": "E-mail the receipt with a redemption link to `email` "
                               "(when e-mail is configured and the app's policy gives links). Default false."},
    },
}
schemas["GrantResponse"] = {
    "type": "object",
    "required": ["purchase", "customer_info"],
    "properties": {
        "purchase": ref("Purchase"),
        "customer_info": ref("CustomerInfo"),
        "redemption_url": s("A new single-use redemption link in the app's custom scheme "
                            "(`<scheme>://redeem_web_purchase?redemption_token=<token>`). Present when the app's "
                            "redemption-link policy allows links for the purchase's environment; every call issues a new one."),
        "redemption_https_url": s("The same token as an HTTPS link, `<public URL>/r/<token>`."),
        "redemption_expires_at": s("When both links expire: the app's link lifetime after the call. " + ISO_NOTE),
    },
}
schemas["RedeemRequest"] = {
    "type": "object",
    "required": ["app_user_id", "redemption_token"],
    "properties": {
        "app_user_id": s("The app's current user, identified or anonymous.", maxLength=100),
        "redemption_token": s("The token from the link."),
    },
}
schemas["RedemptionInfo"] = {
    "type": "object",
    "required": ["purchase_id", "store", "store_identifiers", "owner_app_user_id", "product_identifier", "entitlements"],
    "properties": {
        "purchase_id": s(),
        "purchaser_email": s("The billing e-mail of the purchase, when known."),
        "store": s(),
        "store_identifiers": {"type": "object", "additionalProperties": {"type": "string"},
                              "description": "Store-side identifiers, e.g. `store_transaction_id`."},
        "owner_app_user_id": s("The original app user ID of the customer who owns the purchase now."),
        "product_identifier": s(),
        "entitlements": {"type": "array", "items": {"type": "string"}, "description": "What the product unlocks."},
    },
}
schemas["RedeemSuccess"] = {
    "allOf": [ref("CustomerInfo"), {"type": "object", "required": ["redemption_info"],
                                    "properties": {"redemption_info": ref("RedemptionInfo")}}],
}
schemas["RedeemFailure"] = {
    "type": "object",
    "required": ["code", "message"],
    "properties": {
        "code": {"type": "integer", "description": "7849 invalid token, 7852 belongs to another user, 7853 expired, "
                                                   "7854 redeemed but the subscription has lapsed, 7226 another app's token."},
        "message": s(),
        "purchase_redemption_error_info": {
            "type": "object", "description": "With 7853, when the purchase has an e-mail.",
            "properties": {"obfuscated_email": s(examples=["j***@e***.com"]),
                           "resent": {"type": "boolean", "description": "Whether a new link was e-mailed by this call."}}},
        "customer_info": ref("CustomerInfo"),
    },
}

# ---------------------------------------------------------------- shared responses & parameters
def err_resp(desc, example):
    return {"description": desc, "content": json_content(ref("Error"), example)}


responses = {
    "BadRequest": err_resp(
        "Malformed request (code 7000): no body, invalid JSON, or a missing or mistyped field (`field` names it).",
        {"code": 7000, "field": "name", "message": "Field 'name' has the wrong type; expected String."}),
    "Unauthorized": err_resp(
        "Missing, unknown or revoked API key (code 7225).",
        {"code": 7225, "message": "Missing or invalid API key: send Authorization: Bearer <key>."}),
    "Forbidden": err_resp(
        "The key is valid but may not use this route (code 7226).",
        {"code": 7226, "message": "Public SDK keys cannot reach admin routes."}),
    "NotFound": err_resp(
        "The app, product, entitlement or key does not exist (code 7004).",
        {"code": 7004, "message": "app 'app_019a8f3c2b1e0123456789abcdef' not found"}),
    "Conflict": err_resp(
        "It already exists (code 7009).",
        {"code": 7009, "message": "product 'pro_monthly' already exists"}),
    "UnprocessableContent": err_resp(
        "A field failed validation (code 7001); `field` names it.",
        {"code": 7001, "field": "name", "message": "name must be 1–100 characters"}),
    "InternalError": err_resp(
        "Unexpected failure (code 7500); details are logged, not returned.",
        {"code": 7500, "message": "Internal error; it has been logged."}),
    "UnsupportedMediaType": err_resp(
        "The body was not sent as `Content-Type: application/json` (code 7415).",
        {"code": 7415, "field": "Content-Type", "message": "Send the body as JSON, with Content-Type: application/json."}),
    "Unavailable": {
        "description": ("The database is unreachable or restarting (code 7503); try again after `Retry-After` seconds. "
                        "Nothing was done."),
        "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds to wait."}},
        "content": json_content(ref("Error"), {"code": 7503, "message": "The service is briefly unavailable; try again shortly."}),
    },
    "MethodNotAllowed": err_resp(
        "The path exists, but not for this method (code 7405); `Allow` lists the methods it has.",
        {"code": 7405, "message": "GET /health exists, but not with TRACE."}),
}

parameters = {
    "AppID": {"name": "app_id", "in": "path", "required": True, "description": "App ID.",
              "schema": {"type": "string", "examples": ["app_019a8f3c2b1e0123456789abcdef"]}},
    "ProductID": {"name": "product_id", "in": "path", "required": True, "description": "Product ID.",
                  "schema": dict(IDENT, examples=["pro_monthly"])},
    "EntitlementID": {"name": "entitlement_id", "in": "path", "required": True, "description": "Entitlement ID.",
                      "schema": dict(IDENT, examples=["pro"])},
    "KeyID": {"name": "key_id", "in": "path", "required": True, "description": "Key ID (`key_…`).",
              "schema": {"type": "string", "examples": ["key_019a8f3c2b1e0123456789abcdef"]}},
    "AppUserID": {
        "name": "app_user_id", "in": "path", "required": True,
        "description": ("The app's user ID, percent-encoded as one path segment. Either an anonymous ID "
                        "(`$RCAnonymousID:` followed by 32 lowercase hex digits) or any string of at most 100 "
                        "characters without `/` or control characters that is not a placeholder such as `null`, "
                        "`anonymous`, `0` or `undefined` (case-insensitive). An invalid ID is a 400 with code 7256."),
        "schema": {"type": "string", "minLength": 1, "maxLength": 100, "examples": ["user-42"]},
    },
    "IdempotencyKey": {
        "name": "Idempotency-Key", "in": "header", "required": True,
        "description": ("1–255 characters, unique per purchase. Repeating a request with the same key and a "
                        "byte-identical body returns the original purchase with 200 and creates nothing; the same "
                        "key with a different body is a 409. Keys are scoped to the app."),
        "schema": {"type": "string", "minLength": 1, "maxLength": 255, "examples": ["order-1001"]},
    },
}


def body(schema_name, desc=None, example=None):
    rb = {"required": True, "content": json_content(ref(schema_name), example)}
    if desc:
        rb["description"] = desc
    return rb


BODY_NOTE = "A JSON body is required (send `{}` to change nothing); an empty body is a 400."


def admin_op(op_id, summary, description, tag, params, ok_status, ok_resp, errors, request_body=None):
    op = {
        "operationId": op_id,
        "summary": summary,
        "description": description,
        "tags": [tag],
        "security": [{"bearerKey": []}],
    }
    if params:
        op["parameters"] = [pref(p) for p in params]
    if request_body:
        op["requestBody"] = request_body
    resps = {ok_status: ok_resp}
    for code, name in errors:
        resps[code] = rresp(name)
    resps["500"] = rresp("InternalError")
    op["responses"] = resps
    return op


E400 = ("400", "BadRequest")
E401 = ("401", "Unauthorized")
E403 = ("403", "Forbidden")
E404 = ("404", "NotFound")
E409 = ("409", "Conflict")
E422 = ("422", "UnprocessableContent")

paths = {}

paths["/health"] = {
    "get": {
        "operationId": "getHealth",
        "summary": "Health check",
        "description": "Public. The process is up; checks that the database answers `SELECT 1`.",
        "tags": ["Public"],
        "security": [],
        "responses": {
            "200": ok("The database answers.", ref("Health"),
                      {"database": "sqlite", "database_ok": True, "status": "ok", "uptime_seconds": 42}),
            "503": ok("The database does not answer; same body with `status: degraded`.", ref("Health"),
                      {"database": "postgres", "database_ok": False, "status": "degraded", "uptime_seconds": 42}),
        },
    }
}
paths["/openapi.json"] = {
    "get": {
        "operationId": "getOpenAPIDocument",
        "summary": "This OpenAPI document",
        "description": "Public. Serves this document, as bundled with the server.",
        "tags": ["Public"],
        "security": [],
        "responses": {
            "200": {"description": "The OpenAPI 3.1 document.",
                    "content": {"application/json": {"schema": {"type": "object"}}}},
        },
    }
}

paths["/v1/subscribers/{app_user_id}"] = {
    "get": {
        "operationId": "getCustomerInfo",
        "summary": "Get a customer's CustomerInfo",
        "description": (
            "The SDK route, in RevenueCat's CustomerInfo format.\n\n"
            "**Keys:** any key bound to an app: its public SDK keys (`public_sandbox`, `public_production`) or its "
            "secret key. The instance admin key is not bound to an app and gets 403.\n\n"
            "An unknown app user ID is created as a new customer (with no purchases) and returned with 200; "
            "`last_seen` is updated."),
        "tags": ["SDK"],
        "security": [{"bearerKey": []}],
        "parameters": [pref("AppUserID")],
        "responses": {
            "200": ok("The customer's CustomerInfo.", ref("CustomerInfo"), customer_info_example),
            "400": err_resp("Invalid app user ID (code 7256, `field` is `app_user_id`).",
                            {"code": 7256, "field": "app_user_id",
                             "message": "Invalid app user ID: 'anonymous' is not allowed as an app user ID."}),
            "401": rresp("Unauthorized"),
            "403": err_resp("The key is not bound to an app (the instance admin key) (code 7226).",
                            {"code": 7226, "message": "This route needs an app's public SDK key or secret key."}),
            "500": rresp("InternalError"),
        },
    }
}

paths["/.well-known/apple-app-site-association"] = {
    "get": {
        "operationId": "getAppleAppSiteAssociation",
        "summary": "Apple's universal-link association file",
        "description": ("Lists every app with an iOS team ID and bundle ID, claiming `/r/*`, in both the iOS 13+ form "
                        "(`appIDs`, `components`) and the older one (`appID`, `paths`). Served as JSON with no redirect."),
        "tags": ["Links"],
        "security": [],
        "responses": {"200": ok("The association file.", {"type": "object"},
                                {"applinks": {"apps": [], "details": [{"appIDs": ["ABCDE12345.com.example.app"],
                                 "components": [{"/": "/r/*", "comment": "Redeem redemption links"}],
                                 "appID": "ABCDE12345.com.example.app", "paths": ["/r/*"]}]}})},
    }
}
paths["/.well-known/assetlinks.json"] = {
    "get": {
        "operationId": "getAssetLinks",
        "summary": "Android's app-links statement list",
        "description": "One statement per app with an Android package name and signing-certificate fingerprints.",
        "tags": ["Links"],
        "security": [],
        "responses": {"200": ok("The statement list.", {"type": "array", "items": {"type": "object"}})},
    }
}

paths["/assets/{file}"] = {
    "get": {
        "operationId": "getAsset",
        "summary": "A static file Redeem ships (the demo app's icon)",
        "description": "An app's `icon_url` may name one as `/assets/<file>`; pages load it from their own origin.",
        "tags": ["Public"],
        "security": [],
        "parameters": [{"name": "file", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": {"description": "The file.", "content": {"image/svg+xml": {"schema": {"type": "string"}}}},
                      "404": err_resp("No such file (7004).", {"code": 7004, "message": "No such asset."})},
    }
}

schemas["RedemptionAttempt"] = {
    "type": "object", "required": ["id", "app_user_id", "outcome", "created_at"],
    "properties": {"id": s(), "app_user_id": s(), "created_at": s(ISO_NOTE),
                   "outcome": s("redeemed, subscription_expired, invalid, other_app, belongs_to_other_user or expired")},
}
schemas["PurchaseDetail"] = {
    "type": "object", "required": ["purchase", "redemption_attempts"],
    "properties": {"purchase": ref("Purchase"), "redemption_attempts": {"type": "array", "items": ref("RedemptionAttempt")}},
}
paths["/admin/v1/apps/{app_id}/purchases/{purchase_id}"] = {
    "get": {
        "operationId": "getPurchase",
        "summary": "A purchase and every attempt to redeem its links",
        "description": ADMIN_AUTH,
        "tags": ["Admin"],
        "security": [{"bearerKey": []}],
        "parameters": [pref("AppID"), {"name": "purchase_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": ok("The purchase and its redemption attempts, oldest first.", ref("PurchaseDetail")),
                      "401": rresp("Unauthorized"), "403": rresp("Forbidden") if "Forbidden" in responses else err_resp("Forbidden (7226).", {"code": 7226, "message": "…"}),
                      "404": err_resp("No such app or purchase (7004).", {"code": 7004, "message": "purchase 'pur_x' not found"})},
    }
}

def checkout_params(with_user):
    params = [pref("AppID"), {"name": "product_id", "in": "path", "required": True, "schema": {"type": "string"}}]
    if with_user:
        params.append({"name": "app_user_id", "in": "path", "required": True, "schema": {"type": "string"},
                       "description": "The buyer's app user ID (the identified form)."})
    else:
        params.append({"name": "app_user_id", "in": "query", "required": False, "schema": {"type": "string"},
                       "description": "The identified form as a query parameter; omit for an anonymous checkout."})
    params.append({"name": "email", "in": "query", "required": False, "schema": {"type": "string"},
                   "description": "Prefills and locks the checkout e-mail."})
    params.append({"name": "after_purchase", "in": "query", "required": False,
                   "schema": {"type": "string", "enum": ["hosted", "redirect", "redirect_with_details"]},
                   "description": "Overrides the app's after-purchase step for this link (422 when invalid)."})
    params.append({"name": "after_purchase_url", "in": "query", "required": False, "schema": {"type": "string"},
                   "description": "The redirect target for this link: https (http://localhost in sandbox)."})
    return params


CHECKOUT_NOTE = ("Any other query parameter is kept with the purchase and passed on to a redirect. The anonymous form is "
                 "offered only when the app's redemption-link policy allows links in that environment (403 otherwise).")
for with_user in (False, True):
    suffix = "/{app_user_id}" if with_user else ""
    paths["/sandbox/p/{app_id}/{product_id}" + suffix] = {
        "get": {
            "operationId": "getSandboxCheckout" + ("ForUser" if with_user else ""),
            "summary": "Sandbox purchase link: the built-in test checkout page",
            "description": "No payment is taken; the purchase is marked sandbox and sandbox subscriptions renew on an "
                           "accelerated clock (a week or a month lasts 5 minutes, a year an hour). " + CHECKOUT_NOTE,
            "tags": ["Checkout"], "security": [], "parameters": checkout_params(with_user),
            "responses": {"200": {"description": "The checkout page.", "content": json.loads('{"text/html": {"schema": {"type": "string"}}}')},
                          "403": err_resp("Anonymous checkout not allowed (7226).", {"code": 7226, "message": "…"}),
                          "404": err_resp("Unknown app or product (7004).", {"code": 7004, "message": "product 'x' not found"})},
        },
        "post": {
            "operationId": "paySandboxCheckout" + ("ForUser" if with_user else ""),
            "summary": "Complete a sandbox purchase",
            "description": ("Form fields: `email`, `checkout_id` (from the page; a repeated submit records nothing new), "
                            "`app_user_id` (query form), and `param.<name>` for the link's parameters. Then the app's "
                            "`after_purchase`: the hosted success page with the redemption step (200), or a 303 redirect: "
                            "`redirect` appends `redeem_url` and `app_user_id`; `redirect_with_details` appends `app_user_id`, "
                            "`email`, `stripe_subscription_id` (or `checkout_session_id`) and every custom parameter. "
                            "An identified buyer who already has the product active gets 409."),
            "tags": ["Checkout"], "security": [], "parameters": checkout_params(with_user),
            "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object"}}}},
            "responses": {"200": {"description": "The success page.", "content": json.loads('{"text/html": {"schema": {"type": "string"}}}')},
                          "303": {"description": "Redirect to the app's URL."},
                          "409": err_resp("Already owned or subscribed (7009).", {"code": 7009, "message": "You already own Pro."}),
                          "422": err_resp("Bad e-mail (7001).", {"code": 7001, "field": "email", "message": "email must be an e-mail address"})},
        },
    }
    paths["/p/{app_id}/{product_id}" + suffix] = {
        "get": {
            "operationId": "getCheckout" + ("ForUser" if with_user else ""),
            "summary": "Production purchase link",
            "description": ("With a Stripe secret key configured, creates a Stripe Checkout Session (subscription or one-time "
                            "payment, Redeem's app_id/product_id/app_user_id and the link's parameters in its metadata) and "
                            "redirects to it; Stripe returns the buyer to `/checkout/{app_id}/{product_id}/success`. Without a key: 503. ") + CHECKOUT_NOTE,
            "tags": ["Checkout"], "security": [], "parameters": checkout_params(with_user),
            "responses": {"303": {"description": "To Stripe Checkout."},
                          "403": err_resp("Anonymous checkout not allowed (7226).", {"code": 7226, "message": "…"}),
                          "409": err_resp("Already owned, or the product has no price (7009).", {"code": 7009, "message": "…"}),
                          "502": err_resp("Stripe refused the session (7502).", {"code": 7502, "message": "…"}),
                          "503": err_resp("Not configured (7503).", {"code": 7503, "message": "Paid checkout is not configured on this server; use the sandbox link."})},
        }
    }

schemas["WebhookEndpoint"] = {
    "type": "object", "required": ["id", "app_id", "url", "has_authorization", "created_at"],
    "properties": {"id": s(), "app_id": s(), "url": s(), "has_authorization": {"type": "boolean"}, "created_at": s(ISO_NOTE),
                   "disabled_at": s(ISO_NOTE), "signing_secret": s("Only in the answer to the create call: the key of the "
                   "`Redeem-Signature` HMAC (`t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.\" + body>`).")},
}
schemas["WebhookDelivery"] = {
    "type": "object",
    "properties": {"id": s(), "endpoint_id": s(), "app_id": s(), "event_id": s("Stable across retries and replays."),
                   "event_type": s(), "body": s("Exactly the bytes sent: `{\"api_version\":\"1.0\",\"event\":{…}}`."),
                   "created_at": s(), "next_attempt_at": s(), "attempts": {"type": "integer"}, "delivered_at": s(), "failed_at": s()},
}
schemas["WebhookAttempt"] = {
    "type": "object",
    "properties": {"attempted_at": s(), "status_code": {"type": ["integer", "null"]}, "error": s(nullable=True),
                   "duration_ms": {"type": "integer"}},
}
WEBHOOK_NOTE = ("Events use RevenueCat's names and fields (INITIAL_PURCHASE, NON_RENEWING_PURCHASE, TRANSFER, SUBSCRIBER_ALIAS, "
                "TEST…) plus our REDEMPTION. Delivery is at least once through a durable queue: a non-2xx answer or a timeout "
                "is retried after 5, 10, 20, 40 and 80 minutes; every attempt is logged.")
ep = {"name": "endpoint_id", "in": "path", "required": True, "schema": {"type": "string"}}
dp = {"name": "delivery_id", "in": "path", "required": True, "schema": {"type": "string"}}
def webhook_op(op_id, summary, desc, params, responses, body_schema=None):
    op = {"operationId": op_id, "summary": summary, "description": ADMIN_AUTH + "\n\n" + desc, "tags": ["Webhooks"],
          "security": [{"bearerKey": []}], "parameters": [pref("AppID")] + params, "responses": responses}
    if body_schema:
        op["requestBody"] = {"required": True, "content": json_content(body_schema)}
    return op
paths["/admin/v1/apps/{app_id}/webhooks"] = {
    "post": webhook_op("createWebhook", "Register an endpoint", WEBHOOK_NOTE + " The URL must be https (http only for localhost); "
                     "`authorization` is sent verbatim as the Authorization header.", [],
                     {"201": ok("The endpoint, with its signing secret (shown only now).", ref("WebhookEndpoint")),
                      "422": err_resp("Bad URL or header (7001).", {"code": 7001, "field": "url", "message": "url must be an https URL"})},
                     {"type": "object", "required": ["url"], "properties": {"url": s(), "authorization": s()}}),
    "get": webhook_op("listWebhooks", "List endpoints", "Signing secrets are not shown.", [],
                    {"200": ok("The endpoints.", {"type": "object", "properties": {"webhooks": {"type": "array", "items": ref("WebhookEndpoint")}}})}),
}
paths["/admin/v1/apps/{app_id}/webhooks/{endpoint_id}"] = {
    "delete": webhook_op("disableWebhook", "Disable an endpoint", "Nothing more is queued for it.", [ep],
                       {"204": {"description": "Disabled."}, "404": err_resp("No such endpoint (7004).", {"code": 7004, "message": "…"})}),
}
paths["/admin/v1/apps/{app_id}/webhooks/test"] = {
    "post": webhook_op("sendTestWebhook", "Queue a TEST event for every endpoint", "", [], {"202": {"description": "Queued."}}),
}
paths["/admin/v1/apps/{app_id}/webhooks/deliveries"] = {
    "get": webhook_op("listWebhookDeliveries", "Recent deliveries, newest first", "", [],
                    {"200": ok("Deliveries.", {"type": "object", "properties": {"deliveries": {"type": "array", "items": ref("WebhookDelivery")}}})}),
}
paths["/admin/v1/apps/{app_id}/webhooks/deliveries/{delivery_id}"] = {
    "get": webhook_op("getWebhookDelivery", "A delivery and its attempts", "", [dp],
                    {"200": ok("The delivery.", {"type": "object", "properties": {"delivery": ref("WebhookDelivery"),
                     "attempts": {"type": "array", "items": ref("WebhookAttempt")}}}),
                     "404": err_resp("No such delivery (7004).", {"code": 7004, "message": "…"})}),
}
paths["/admin/v1/apps/{app_id}/webhooks/deliveries/{delivery_id}/replay"] = {
    "post": webhook_op("replayWebhookDelivery", "Send a delivery again", "The same event ID and body, whatever its state.", [dp],
                     {"202": {"description": "Queued now."}, "404": err_resp("No such delivery (7004).", {"code": 7004, "message": "…"})}),
}

paths["/webhooks/stripe"] = {
    "post": {
        "operationId": "receiveStripeEvent",
        "summary": "Stripe webhook endpoint",
        "description": ("On when `--stripe-webhook-secret` is set (404 otherwise). The `Stripe-Signature` header is verified as "
                        "Stripe specifies (`t=` and one or more `v1=` HMAC-SHA256 values over `\"<t>.\" + raw body`, constant-time, "
                        "300 s tolerance) before anything else; anything else is a 400. Events are deduplicated on `event.id` in the "
                        "same transaction as their effects. Handled: checkout.session.completed (grant when paid or no payment is "
                        "required), checkout.session.async_payment_succeeded/failed, invoice.paid (renewal), invoice.payment_failed "
                        "(billing issue), customer.subscription.updated (cancel at period end, status), customer.subscription.deleted "
                        "(expiry), charge.refunded (refund). An event about a subscription not recorded yet gets 503 so Stripe sends "
                        "it again. Checkout Sessions must carry Redeem's `app_id`, `product_id` and optional `app_user_id` in metadata. "
                        "Pinned Stripe API version: 2024-06-20 (newer field locations are read too)."),
        "tags": ["Webhooks"],
        "security": [],
        "parameters": [{"name": "Stripe-Signature", "in": "header", "required": True, "schema": {"type": "string"}}],
        "requestBody": {"required": True, "content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {
            "200": ok("Processed, or a duplicate.", {"type": "object", "properties": {"received": {"type": "boolean"}, "duplicate": {"type": "boolean"}}}),
            "400": err_resp("Bad signature (7400) or not an event (7000).", {"code": 7400, "message": "Stripe signature rejected"}),
            "404": err_resp("Stripe is not configured (7004).", {"code": 7004, "message": "Stripe is not configured on this server."}),
            "503": err_resp("Refers to a subscription not recorded yet (7503).", {"code": 7503, "message": "…"}),
        },
    }
}

paths["/checkout/{app_id}/{product_id}/success"] = {
    "get": {
        "operationId": "getPaidCheckoutReturn",
        "summary": "Where Stripe Checkout returns the buyer",
        "description": ("`?session_id=` is Stripe's Checkout Session ID. Until Stripe's webhook has recorded the purchase, a page "
                        "that refreshes itself; then the app's after-purchase step (the success page with a fresh redemption link, "
                        "or a redirect)."),
        "tags": ["Checkout"], "security": [],
        "parameters": [pref("AppID"), {"name": "product_id", "in": "path", "required": True, "schema": {"type": "string"}},
                       {"name": "session_id", "in": "query", "required": True,
                        "schema": {"type": "string", "minLength": 8, "maxLength": 255}}],
        "responses": {"200": {"description": "Waiting, or the success page.", "content": {"text/html": {"schema": {"type": "string"}}}},
                      "303": {"description": "The app's redirect."},
                      "400": {"description": "No checkout named: a page saying so.", "content": {"text/html": {"schema": {"type": "string"}}}}},
    }
}

schemas["WebCheckoutStatus"] = {
    "type": "object", "required": ["id", "status", "is_sandbox"],
    "properties": {
        "id": s("The checkout ID (`chk_…`, 128 random bits)."),
        "status": {"type": "string", "enum": ["started", "in_progress", "succeeded", "failed"]},
        "is_sandbox": {"type": "boolean"},
        "checkout_url": s("Where to send the buyer (only when starting): the sandbox checkout page, or Stripe Checkout."),
        "purchase_id": s("Once succeeded."),
        "redemption_info": {"type": "object", "description": "Once succeeded, when the app's policy gives links: a fresh single-use link on every call.",
                            "properties": {"redemption_url": s(), "redemption_https_url": s(), "expires_at": s(ISO_NOTE)}},
    },
}
paths["/v1/web_checkouts"] = {
    "post": {
        "operationId": "startWebCheckout",
        "summary": "Start a checkout from your own web app",
        "description": ("**Keys:** a public SDK key; the sandbox key starts a sandbox checkout, the production key a Stripe one (503 "
                        "without Stripe). Body: `product_id`, optional `app_user_id` (the anonymous form needs the app's policy to "
                        "allow links), `email`, `metadata` (kept with the purchase). No hosted redemption page is shown: poll the "
                        "status and present `redemption_info` yourself."),
        "tags": ["Checkout"], "security": [{"bearerKey": []}],
        "requestBody": {"required": True, "content": json_content({"type": "object", "required": ["product_id"], "properties": {
            "product_id": s(), "app_user_id": s(), "email": s(), "metadata": {"type": "object", "additionalProperties": {"type": "string"}}}})},
        "responses": {"201": ok("Started.", ref("WebCheckoutStatus")), "403": err_resp("Anonymous checkout not allowed (7226).", {"code": 7226, "message": "…"}),
                      "404": err_resp("Unknown product (7004).", {"code": 7004, "message": "…"}),
                      "409": err_resp("The product has no price, so it cannot be sold (7009).", {"code": 7009, "message": "…"}),
                      "422": err_resp("A field is invalid, such as `email` (7001).", {"code": 7001, "field": "email", "message": "…"}),
                      "503": err_resp("Paid checkout not configured (7503).", {"code": 7503, "message": "…"})},
    }
}
paths["/v1/web_checkouts/{checkout_id}"] = {
    "get": {
        "operationId": "getWebCheckout",
        "summary": "A checkout's status: started, in_progress, succeeded or failed",
        "description": "**Keys:** the same app's public SDK keys. On success: `purchase_id` and `redemption_info`.",
        "tags": ["Checkout"], "security": [{"bearerKey": []}],
        "parameters": [{"name": "checkout_id", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {"200": ok("The status.", ref("WebCheckoutStatus")), "404": err_resp("Unknown checkout (7004).", {"code": 7004, "message": "…"})},
    }
}

paths["/v1/benchmark/baseline"] = {
    "post": {
        "operationId": "benchmarkBaseline",
        "summary": "The redemption benchmark's baseline (only with --benchmark-routes)",
        "description": "Authenticated like a redemption; runs a single UPDATE … RETURNING on the token table. Off unless the server runs with `--benchmark-routes`.",
        "tags": ["Benchmark"], "security": [{"bearerKey": []}],
        "requestBody": {"required": True, "content": json_content({"type": "object", "properties": {"redemption_token": s()}})},
        "responses": {"200": ok("Done.", {"type": "object", "properties": {"found": {"type": "boolean"}}}),
                      "404": err_resp("Served only with `--benchmark-routes` (7004).", {"code": 7004, "message": "Not Found"})},
    }
}

paths["/r/{token}"] = {
    "get": {
        "operationId": "getRedemptionLinkPage",
        "summary": "The HTTPS redemption link, opened in a browser",
        "description": ("An HTML page: the app's name and icon, an \"Open in app\" button (custom scheme, or an Android "
                        "intent that falls back to Google Play), store badges, and on computers a QR code of the link. "
                        "Used, expired and unknown links get a clear message and a \"send me a new link\" form. "
                        "**Viewing never consumes the token.** Served with `Cache-Control: no-store` and "
                        "`Referrer-Policy: no-referrer`."),
        "tags": ["Links"],
        "security": [],
        "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}],
        "responses": {
            "200": {"description": "A live link.", "content": {"text/html": {"schema": {"type": "string"}}}},
            "404": {"description": "Unknown or malformed token.", "content": {"text/html": {"schema": {"type": "string"}}}},
            "410": {"description": "Used or expired.", "content": {"text/html": {"schema": {"type": "string"}}}},
        },
    }
}
paths["/r/{token}/resend"] = {
    "post": {
        "operationId": "resendRedemptionLink",
        "summary": "The page's \"send me a new link\" form",
        "description": ("Form field `email`. When it matches the purchase's billing address, a new link is e-mailed (at most "
                        "one per quiet period). The answer is always a 303 back to the page with `?sent=1`, so it never "
                        "reveals whether the address matched. Rate-limited per IP and address."),
        "tags": ["Links"],
        "security": [],
        "parameters": [{"name": "token", "in": "path", "required": True, "schema": {"type": "string"}}],
        "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object", "properties": {"email": {"type": "string"}}}}}},
        "responses": {"303": {"description": "Back to the page."}, "429": {"description": "Too many requests; see `Retry-After`."}},
    }
}

paths["/v1/subscribers/redeem_purchase"] = {
    "post": {
        "operationId": "redeemPurchase",
        "summary": "Redeem a web purchase's redemption link for the app's current user",
        "description": (
            "RevenueCat-compatible redemption. **Keys:** the app's public SDK keys (or its secret key).\n\n"
            "The token is consumed by one conditional update in the same transaction as the association: "
            "if either side is anonymous the two customers are merged; between identified users the app's "
            "restore behaviour decides (transfer, transfer only without an active subscription, or keep with the "
            "original owner, which answers 7852). The user who consumed a token may present it again and gets "
            "success; anyone else gets 7852, never 7853."),
        "tags": ["SDK"],
        "security": [{"bearerKey": []}],
        "requestBody": body("RedeemRequest", example={"app_user_id": "$RCAnonymousID:0123456789abcdef0123456789abcdef",
                                                       "redemption_token": "3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}),
        "responses": {
            "200": ok("Redeemed: the current user's CustomerInfo plus `redemption_info`.", ref("RedeemSuccess")),
            "400": {"description": "Invalid or unknown token (code 7849), a malformed body (7000) or an invalid app user ID (7256).",
                    "content": json_content(ref("RedeemFailure"), {"code": 7849, "message": "Invalid redemption token."})},
            "401": rresp("Unauthorized"),
            "403": {"description": "Belongs to another user (7852), expired (7853, with the masked e-mail), the subscription "
                                   "has lapsed (7854, with `customer_info`; the purchase was still redeemed), or another app's token (7226).",
                    "content": json_content(ref("RedeemFailure"), {"code": 7853, "message": "The link has expired.",
                                            "purchase_redemption_error_info": {"obfuscated_email": "j***@e***.com", "resent": False}})},
            "500": rresp("InternalError"),
        },
    }
}

schemas["NewLinkRequest"] = {
    "type": "object", "required": ["email"],
    "properties": {"email": s("The billing e-mail address of the purchase.")},
}
schemas["Accepted"] = {"type": "object", "required": ["status"], "properties": {"status": s(examples=["accepted"])}}

paths["/v1/redemption_links/request"] = {
    "post": {
        "operationId": "requestNewRedemptionLink",
        "summary": "E-mail a new redemption link for each purchase billed to an address",
        "description": (
            "For another device, or a lost link. **Keys:** the app's public SDK keys. The answer is the same (202) whether "
            "or not the address has purchases, so it reveals nothing; at most one new-link e-mail per purchase is queued per "
            "quiet period (5 minutes by default). Rate-limited per IP and per address (429 with `Retry-After`)."),
        "tags": ["SDK"],
        "security": [{"bearerKey": []}],
        "requestBody": body("NewLinkRequest", example={"email": "buyer@example.com"}),
        "responses": {
            "202": ok("Accepted.", ref("Accepted"), {"status": "accepted"}),
            "400": rresp("BadRequest") if "BadRequest" in responses else err_resp("Malformed body (code 7000).", {"code": 7000, "message": "A JSON body is required."}),
            "401": rresp("Unauthorized"),
            "422": err_resp("Not an e-mail address (code 7001).", {"code": 7001, "field": "email", "message": "email must be an e-mail address"}),
            "429": err_resp("Too many requests (code 7429); see `Retry-After`.", {"code": 7429, "message": "Too many attempts; try again later."}),
        },
    }
}

paths["/v1/purchases"] = {
    "post": {
        "operationId": "createPurchase",
        "summary": "Record a purchase (server API)",
        "description": (
            "Grants a purchase made anywhere to an app user, exactly once per `Idempotency-Key`, and returns it "
            "with the user's updated CustomerInfo.\n\n"
            "**Keys:** the app's secret key only. Public SDK keys and the instance admin key get 403.\n\n"
            "Checks run in this order: key (401/403), `Idempotency-Key` header (400), body (400/422), product (404)."),
        "tags": ["Server"],
        "security": [{"bearerKey": []}],
        "parameters": [pref("IdempotencyKey")],
        "requestBody": body("GrantRequest", example={
            "app_user_id": "user-42", "product_id": "pro_monthly", "store": "stripe",
            "purchase_date": "2026-01-01T00:00:00Z", "store_transaction_id": "pi_123",
            "price": {"amount": "4.99", "currency": "USD"}, "email": "buyer@example.com"}),
        "responses": {
            "201": ok("Recorded.", ref("GrantResponse")),
            "200": ok("Already recorded under this `Idempotency-Key` with the same body: the original purchase "
                      "and the current CustomerInfo. Nothing new is created.", ref("GrantResponse")),
            "400": err_resp("Missing or over-long `Idempotency-Key` header (code 7000, `field` `Idempotency-Key`); "
                            "a malformed body (code 7000); or an invalid `app_user_id` (code 7256).",
                            {"code": 7000, "field": "Idempotency-Key",
                             "message": "An Idempotency-Key header (1–255 characters) is required."}),
            "401": rresp("Unauthorized"),
            "403": err_resp("Not the app's secret key (code 7226).",
                            {"code": 7226,
                             "message": "This route needs the app's secret key; public SDK keys cannot use it."}),
            "404": err_resp("No such product in the app (code 7004).",
                            {"code": 7004, "message": "product 'pro_monthly' not found"}),
            "409": err_resp("The `Idempotency-Key` was already used with a different body (code 7009). Bodies are compared "
                            "as JSON with sorted keys, so key order and whitespace do not matter.",
                            {"code": 7009, "message": "the idempotency key was used with a different request"}),
            "422": err_resp("A field failed validation (code 7001): `product_id`, `store`, `period_type`, `email`, "
                            "`store_transaction_id`, `expires_date` (not after `purchase_date`), `price.amount`, "
                            "`price.currency`.",
                            {"code": 7001, "field": "price.currency",
                             "message": "price.currency must be an ISO-4217 code such as USD"}),
            "500": rresp("InternalError"),
        },
    }
}

TAG_APPS, TAG_CAT, TAG_KEYS = "Admin: apps", "Admin: catalog", "Admin: keys"

paths["/admin/v1/apps"] = {
    "post": admin_op(
        "createApp", "Create an app",
        ("Creates an app with its three keys (public sandbox, public production, secret), returned in plaintext "
         "this once.\n\n**Keys:** the instance admin key only; app secret keys and public keys get 403."),
        TAG_APPS, [], "201", ok("Created.", ref("CreatedApp")),
        [E400, E401, E403, E422],
        body("AppChanges", "`name` is required; everything else defaults.",
             {"name": "Acme", "ios_bundle_id": "com.example.acme", "support_email": "help@example.com"})),
    "get": admin_op(
        "listApps", "List apps",
        ("**Keys:** the instance admin key lists every app. An app's secret key is allowed too and lists only "
         "its own app. Public SDK keys get 403."),
        TAG_APPS, [], "200", ok("The apps.", ref("AppList"), {"apps": [app_example]}),
        [E401, E403]),
}
paths["/admin/v1/apps/{app_id}"] = {
    "get": admin_op("getApp", "Get an app", ADMIN_AUTH, TAG_APPS, ["AppID"], "200",
                    ok("The app.", ref("App"), app_example), [E401, E403, E404]),
    "patch": admin_op(
        "updateApp", "Update an app's settings",
        ADMIN_AUTH + "\n\nOnly the given fields change; all are validated before any is applied. " + BODY_NOTE,
        TAG_APPS, ["AppID"], "200", ok("The updated app.", ref("App")),
        [E400, E401, E403, E404, E422],
        body("AppChanges", example={"redemption_link_policy": "sandbox_only", "icon_url": ""})),
}
paths["/admin/v1/apps/{app_id}/products"] = {
    "post": admin_op(
        "createProduct", "Create a product",
        ADMIN_AUTH + "\n\nEntitlement IDs that do not exist yet are created along with it.",
        TAG_CAT, ["AppID"], "201", ok("Created.", ref("Product")),
        [E400, E401, E403, E404, E409, E422],
        body("ProductInput", example={"id": "pro_monthly", "type": "subscription", "period": "P1M",
                                      "display_name": "Pro Monthly", "entitlements": ["pro"]})),
    "get": admin_op("listProducts", "List products", ADMIN_AUTH, TAG_CAT, ["AppID"], "200",
                    ok("The app's products.", ref("ProductList")), [E401, E403, E404]),
}
paths["/admin/v1/apps/{app_id}/products/{product_id}"] = {
    "get": admin_op("getProduct", "Get a product", ADMIN_AUTH, TAG_CAT, ["AppID", "ProductID"], "200",
                    ok("The product.", ref("Product")), [E401, E403, E404]),
    "patch": admin_op(
        "updateProduct", "Update a product",
        ADMIN_AUTH + "\n\nChanges the display name and/or replaces the entitlement set. " + BODY_NOTE,
        TAG_CAT, ["AppID", "ProductID"], "200", ok("The updated product.", ref("Product")),
        [E400, E401, E403, E404, E422],
        body("ProductUpdate", example={"entitlements": ["pro", "pro_plus"]})),
}
paths["/admin/v1/apps/{app_id}/entitlements"] = {
    "post": admin_op(
        "createEntitlement", "Create an entitlement", ADMIN_AUTH,
        TAG_CAT, ["AppID"], "201", ok("Created.", ref("Entitlement")),
        [E400, E401, E403, E404, E409, E422],
        body("EntitlementInput", example={"id": "pro", "display_name": "Pro"})),
    "get": admin_op("listEntitlements", "List entitlements", ADMIN_AUTH, TAG_CAT, ["AppID"], "200",
                    ok("The app's entitlements.", ref("EntitlementList")), [E401, E403, E404]),
}
paths["/admin/v1/apps/{app_id}/entitlements/{entitlement_id}"] = {
    "get": admin_op("getEntitlement", "Get an entitlement", ADMIN_AUTH, TAG_CAT, ["AppID", "EntitlementID"], "200",
                    ok("The entitlement.", ref("Entitlement")), [E401, E403, E404]),
    "patch": admin_op(
        "updateEntitlement", "Set an entitlement's display name",
        ADMIN_AUTH + "\n\nAn omitted, null or empty `display_name` clears it. " + BODY_NOTE,
        TAG_CAT, ["AppID", "EntitlementID"], "200", ok("The updated entitlement.", ref("Entitlement")),
        [E400, E401, E403, E404],
        body("EntitlementUpdate", example={"display_name": "Pro"})),
}
paths["/admin/v1/apps/{app_id}/keys"] = {
    "post": admin_op(
        "createKey", "Create an API key",
        ADMIN_AUTH + "\n\nThe plaintext is returned this once; only a hash is stored.",
        TAG_KEYS, ["AppID"], "201", ok("Created.", ref("CreatedKey")),
        [E400, E401, E403, E404, E422],
        body("KeyRequest", example={"kind": "public_production"})),
    "get": admin_op("listKeys", "List API keys", ADMIN_AUTH + "\n\nPlaintexts are never returned.",
                    TAG_KEYS, ["AppID"], "200", ok("The app's keys, revoked ones included.", ref("KeyList")),
                    [E401, E403, E404]),
}
paths["/admin/v1/apps/{app_id}/keys/{key_id}"] = {
    "delete": admin_op(
        "revokeKey", "Revoke an API key",
        ADMIN_AUTH + ("\n\nRevoking is idempotent (an already revoked key keeps its original `revoked_at`). "
                      "It takes effect at once in this process and within 5 seconds in other instances "
                      "(key cache)."),
        TAG_KEYS, ["AppID", "KeyID"], "204", {"description": "Revoked; no body."},
        [E401, E403, E404]),
}

exec(open(os.path.join(os.path.dirname(__file__), "offers.py"), encoding="utf-8").read())

doc = {
    "openapi": "3.1.0",
    "info": {
        "title": "Redeem",
        "version": "0.1.0",
        "description": (
            "Redeem is a self-hosted web-to-app purchase service: purchases made on the web are recorded through "
            "the server API and reach the app through RevenueCat-compatible CustomerInfo.\n\n"
            "**Authentication:** `Authorization: Bearer <key>` on every route under `/v1` and `/admin/v1`. "
            "Key kinds:\n"
            "- public SDK keys (`rdm_pk_sbx_…`, `rdm_pk_prod_…`): `GET /v1/subscribers/{app_user_id}` only;\n"
            "- an app's secret key (`rdm_sk_…`): `POST /v1/purchases`, `GET /v1/subscribers/{app_user_id}`, and "
            "the admin routes of its own app;\n"
            "- the instance admin key (`rdm_admin_…`): every admin route of every app, including creating apps "
            "and listing all apps (it cannot use the `/v1` routes).\n\n"
            "`/health` and `/openapi.json` are public.\n\n"
            "**Conventions:** JSON bodies (at most 2 MiB); snake_case keys (except the `Purchase` object); "
            "timestamps are ISO-8601 UTC strings such as `2026-01-01T00:00:00Z`; unknown request fields are "
            "ignored; in admin bodies a field is either given a value or left out (to keep it), and `null` is a 400. Errors are `{\"code\", \"message\", \"field\"?}` (see the `Error` schema)."),
    },
    "tags": [
        {"name": "Public", "description": "No key needed."},
        {"name": "SDK", "description": "Called by the app's SDK with a public key."},
        {"name": "Server", "description": "Called by your backend with the app's secret key."},
        {"name": TAG_APPS},
        {"name": TAG_CAT, "description": "Products and entitlements."},
        {"name": TAG_KEYS},
        {"name": TAG_OFFERS, "description": "Offers, one-time and custom codes, and the web redemption page."},
    ],
    "security": [{"bearerKey": []}],
    "paths": paths,
    "components": {
        "securitySchemes": {
            "bearerKey": {
                "type": "http",
                "scheme": "bearer",
                "description": ("A Redeem API key: public SDK key (`rdm_pk_sbx_…` / `rdm_pk_prod_…`), app secret "
                                "key (`rdm_sk_…`) or instance admin key (`rdm_admin_…`). Which kinds a route "
                                "accepts is stated in its description. A missing, unknown or revoked key is a 401; "
                                "a key of the wrong kind is a 403."),
            }
        },
        "schemas": schemas,
        "responses": responses,
        "parameters": parameters,
    },
}

# Statuses any operation can answer, documented once here rather than on each: a key that is missing or of the wrong
# kind (401, 403) on keyed routes; a malformed body (400) or one that is not JSON (415) on JSON routes; an unknown app
# (404) on routes under one; a database outage (503) wherever the database is read.
for path, operations in paths.items():
    for method, op in operations.items():
        if method not in ("get", "post", "put", "patch", "delete"):
            continue
        answers = op.setdefault("responses", {})
        keyed = op.get("security", doc["security"]) != []
        if keyed:
            answers.setdefault("401", rresp("Unauthorized"))
            answers.setdefault("403", rresp("Forbidden"))
        json_body = "application/json" in op.get("requestBody", {}).get("content", {})
        if json_body:
            answers.setdefault("400", rresp("BadRequest"))
            answers.setdefault("415", rresp("UnsupportedMediaType"))
        if "{app_id}" in path or "{token}" in path:
            answers.setdefault("404", rresp("NotFound"))
        if path.startswith("/p/") or path.startswith("/sandbox/p/"):
            # Checkout links check the buyer's ID and the page overrides in their query.
            answers.setdefault("400", rresp("BadRequest"))
            answers.setdefault("422", rresp("UnprocessableContent"))
        if path != "/openapi.json":
            answers.setdefault("503", rresp("Unavailable"))

with open(OUT, "w", encoding="utf-8") as f:
    json.dump(doc, f, indent=2, ensure_ascii=False)
    f.write("\n")

"""Offer-code routes and schemas. Run by generate.py in its own namespace (its helpers and `paths`/`schemas` are in scope)."""
# flake8: noqa: F821 (names come from generate.py)

TAG_OFFERS = "Offer codes"
OFFER_ERRORS = ("Failures (each its own code): 7860 invalid (also for malformed codes: the two are never told apart), "
                "7861 expired, 7862 inactive (offer, batch or code switched off, or the offer has not started), "
                "7863 exhausted (a custom code's cap), 7864 already redeemed (this one-time code, or this customer for "
                "this offer), 7865 not eligible, 7866 would downgrade, 7867 quota reached, 7868 payment required "
                "(a paid offer; `redeem_url` points to the web page that takes payment).")

schemas["Offer"] = {
    "type": "object",
    "required": ["id", "app_id", "product_id", "reference_name", "payment_mode", "duration", "periods", "eligibility", "active", "created_at"],
    "properties": {
        "id": s(examples=["ofr_019a8f3c2b1e0123456789abcdef"]),
        "app_id": s(),
        "product_id": s(),
        "reference_name": s("Carried by transactions (`offer_code_ref_name`) and notifications; unique per app."),
        "payment_mode": s(enum=["free_trial", "pay_as_you_go", "pay_up_front"]),
        "duration": s("Subscriptions only: one offer period.", nullable=True, enum=["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y", None]),
        "periods": {"type": "integer", "minimum": 1, "maximum": 12, "description": "How many durations (1 for pay_up_front)."},
        "price": {"oneOf": [ref("Price"), {"type": "null"}]} if "Price" in schemas else {"type": ["object", "null"]},
        "eligibility": {"type": "array", "items": s(enum=["new", "existing", "expired"])},
        "starts_at": dt(nullable=True),
        "ends_at": dt(nullable=True),
        "active": {"type": "boolean"},
        "created_at": dt(),
    },
}
schemas["OfferInput"] = {
    "type": "object", "required": ["product_id", "reference_name", "payment_mode", "eligibility"],
    "properties": {
        "product_id": s(), "reference_name": s(maxLength=64),
        "payment_mode": s(enum=["free_trial", "pay_as_you_go", "pay_up_front"]),
        "duration": s("Required for subscriptions; absent for one-time products.", enum=["P3D", "P1W", "P2W", "P1M", "P2M", "P3M", "P6M", "P1Y"]),
        "periods": {"type": "integer", "minimum": 1, "maximum": 12, "default": 1},
        "price": {"type": "object", "description": "Required for paid offers: `{\"amount\": \"0.99\", \"currency\": \"USD\"}`."},
        "eligibility": {"type": "array", "minItems": 1, "items": s(enum=["new", "existing", "expired"]),
                        "description": "One-time products take only `[\"new\"]` (never purchased)."},
        "starts_at": dt(), "ends_at": dt(), "active": {"type": "boolean", "default": True},
    },
}
schemas["ActiveSwitch"] = {"type": "object", "required": ["active"], "properties": {"active": {"type": "boolean"}}}
schemas["CodeBatch"] = {
    "type": "object", "required": ["id", "app_id", "offer_id", "count", "expires_at", "active", "created_at"],
    "properties": {"id": s(examples=["batch_019a8f3c2b1e0123456789abcdef"]), "app_id": s(), "offer_id": s(), "count": {"type": "integer"},
                   "expires_at": dt(), "active": {"type": "boolean"}, "created_at": dt(),
                   "redeemed": {"type": "integer", "description": "In listings: codes redeemed so far."}},
}
schemas["CodeBatchRequest"] = {
    "type": "object", "required": ["count", "expires_at"],
    "properties": {"count": {"type": "integer", "minimum": 1, "maximum": 1000000}, "expires_at": dt("At most 6 months away."),
                   "length": {"type": "integer", "minimum": 16, "maximum": 18, "default": 16, "description": "Characters per code."}},
}
schemas["GeneratedCodeBatch"] = {
    "type": "object", "required": ["batch", "codes", "redemption_url_base"],
    "properties": {"batch": ref("CodeBatch"), "codes": {"type": "array", "items": s(examples=["ABCD-EFGH-JKMN-PQRS"])},
                   "redemption_url_base": s("Append a code to get its web redemption URL.")},
}
schemas["CustomCode"] = {
    "type": "object", "required": ["id", "app_id", "offer_id", "code", "max_redemptions", "redemption_count", "expires_at", "active", "created_at"],
    "properties": {"id": s(examples=["cc_019a8f3c2b1e0123456789abcdef"]), "app_id": s(), "offer_id": s(),
                   "code": s("Canonical form: upper case, without spaces or dashes.", examples=["SUMMER25"]),
                   "max_redemptions": {"type": "integer"}, "redemption_count": {"type": "integer"},
                   "expires_at": dt(nullable=True), "active": {"type": "boolean"}, "created_at": dt()},
}
schemas["CustomCodeInput"] = {
    "type": "object", "required": ["offer_id", "code", "max_redemptions"],
    "properties": {"offer_id": s(), "code": s("4–30 letters or digits; unique per app regardless of case."),
                   "max_redemptions": {"type": "integer", "minimum": 1, "maximum": 1000000}, "expires_at": dt(),
                   "active": {"type": "boolean", "default": True}},
}
schemas["OfferCodeUsage"] = {
    "type": "object", "required": ["quarter", "quota", "used", "offers"],
    "properties": {"quarter": s(examples=["2026-Q4"]), "quota": {"type": "integer"}, "used": {"type": "integer"},
                   "offers": {"type": "array", "items": {"type": "object", "properties": {
                       "offer_id": s(), "reference_name": s(), "redemptions": {"type": "integer"}}}}},
}
schemas["OfferRedemption"] = {
    "type": "object",
    "properties": {"id": s(), "offer_id": s(), "reference_name": s(), "app_user_id": s(), "customer_id": s(),
                   "code_type": s(enum=["one_time", "custom"]), "custom_code": s(nullable=True), "batch_id": s(nullable=True),
                   "purchase_id": s(nullable=True), "channel": s(enum=["sdk", "web"]), "created_at": dt()},
}
schemas["OfferCodeRequest"] = {
    "type": "object", "required": ["app_user_id", "code"],
    "properties": {"app_user_id": s(), "code": s("As typed: any case; spaces and dashes are ignored.")},
}


def list_of(name, key):
    return {"type": "object", "required": [key], "properties": {key: {"type": "array", "items": ref(name)}}}


def filter_param(name, desc):
    return {"name": name, "in": "query", "required": False, "description": desc, "schema": {"type": "string"}}


def path_param(name, desc):
    return {"name": name, "in": "path", "required": True, "description": desc, "schema": {"type": "string"}}


def with_params(op, *extra):
    op["parameters"] = op.get("parameters", []) + list(extra)
    return op


CSV = {"text/csv": {"schema": {"type": "string"}}}

paths["/admin/v1/apps/{app_id}/offers"] = {
    "post": admin_op("createOffer", "Create an offer", ADMIN_AUTH + "\n\nA subscription product takes at most 10 active offers; "
                     "the 11th is a 409. Reference names are unique per app (409).", TAG_OFFERS, ["AppID"], "201",
                     ok("Created.", ref("Offer")), [E400, E401, E403, E404, E409, E422], body("OfferInput")),
    "get": with_params(admin_op("listOffers", "List offers", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200",
                                ok("The app's offers, oldest first.", list_of("Offer", "offers")), [E401, E403, E404]),
                       filter_param("product_id", "Only this product's offers.")),
}
paths["/admin/v1/apps/{app_id}/offers/{offer_id}"] = {
    "get": with_params(admin_op("showOffer", "Show an offer", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200", ok("The offer.", ref("Offer")),
                                [E401, E403, E404]), path_param("offer_id", "Offer ID.")),
    "patch": with_params(admin_op("switchOffer", "Activate or deactivate an offer", ADMIN_AUTH + "\n\nActivating counts against the 10-offer limit.",
                                  TAG_OFFERS, ["AppID"], "200", ok("The offer.", ref("Offer")), [E400, E401, E403, E404, E409],
                                  body("ActiveSwitch")), path_param("offer_id", "Offer ID.")),
}
batch_op = admin_op(
    "generateCodeBatch", "Generate one-time codes",
    ADMIN_AUTH + ("\n\nUp to 1,000,000 codes of 16 characters from an alphabet without look-alikes, shown grouped "
                  "(`ABCD-EFGH-JKMN-PQRS`). Only their SHA-256 is stored: **this response is the only copy**. If it is lost, "
                  "deactivate the batch and generate another. `?format=csv` answers `text/csv` (`code,redemption_url`)."),
    TAG_OFFERS, ["AppID"], "201", {"description": "The batch and its codes.", "content": {
        "application/json": {"schema": ref("GeneratedCodeBatch")}, **CSV}}, [E400, E401, E403, E404, E422], body("CodeBatchRequest"))
paths["/admin/v1/apps/{app_id}/offers/{offer_id}/code_batches"] = {
    "post": with_params(batch_op, path_param("offer_id", "Offer ID."), filter_param("format", "`csv` for a CSV file.")),
}
paths["/admin/v1/apps/{app_id}/code_batches"] = {
    "get": with_params(admin_op("listCodeBatches", "List code batches with their use", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200",
                                ok("Newest first.", list_of("CodeBatch", "batches")), [E401, E403, E404]),
                       filter_param("offer_id", "Only this offer's batches.")),
}
paths["/admin/v1/apps/{app_id}/code_batches/{batch_id}"] = {
    "patch": with_params(admin_op("switchCodeBatch", "Activate or deactivate a batch", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200",
                                  ok("The batch.", ref("CodeBatch")), [E400, E401, E403, E404], body("ActiveSwitch")),
                         path_param("batch_id", "Batch ID.")),
}
paths["/admin/v1/apps/{app_id}/custom_codes"] = {
    "post": admin_op("createCustomCode", "Create a custom code", ADMIN_AUTH + "\n\nCodes are unique per app regardless of case (409). "
                     "The cap is enforced exactly, by one conditional update per redemption.", TAG_OFFERS, ["AppID"], "201",
                     ok("Created.", ref("CustomCode")), [E400, E401, E403, E404, E409, E422], body("CustomCodeInput")),
    "get": with_params(admin_op("listCustomCodes", "List custom codes with their use", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200",
                                ok("Oldest first.", list_of("CustomCode", "custom_codes")), [E401, E403, E404]),
                       filter_param("offer_id", "Only this offer's codes.")),
}
paths["/admin/v1/apps/{app_id}/custom_codes/{code_id}"] = {
    "patch": with_params(admin_op("switchCustomCode", "Activate or deactivate a custom code", ADMIN_AUTH, TAG_OFFERS, ["AppID"], "200",
                                  ok("The code.", ref("CustomCode")), [E400, E401, E403, E404], body("ActiveSwitch")),
                         path_param("code_id", "Custom code ID (`cc_…`).")),
}
paths["/admin/v1/apps/{app_id}/offer_codes/usage"] = {
    "get": admin_op("offerCodeUsage", "This quarter's quota use and each offer's redemptions",
                    ADMIN_AUTH + "\n\nThe quota (`offer_code_quota_per_quarter` on the app, 1,000,000 by default) counts redemptions "
                    "per calendar quarter in UTC.", TAG_OFFERS, ["AppID"], "200", ok("Usage.", ref("OfferCodeUsage")), [E401, E403, E404]),
}
paths["/admin/v1/apps/{app_id}/offer_codes/redemptions"] = {
    "get": with_params(admin_op("offerRedemptionReport", "The redemption report",
                                ADMIN_AUTH + "\n\nJSON, or CSV with `?format=csv` (customer, code type, custom code, offer, date).",
                                TAG_OFFERS, ["AppID"], "200", {"description": "Oldest first.", "content": {
                                    "application/json": {"schema": list_of("OfferRedemption", "redemptions")}, **CSV}},
                                [E401, E403, E404]),
                       filter_param("offer_id", "Only this offer's redemptions."), filter_param("format", "`csv` for a CSV file.")),
}

paths["/v1/subscribers/redeem_offer_code"] = {
    "post": {
        "operationId": "redeemOfferCode",
        "summary": "Redeem an offer code for the app's current user",
        "description": ("**Keys:** the app's public SDK keys. The claim (one conditional update), the quarterly quota, the "
                        "one-per-customer record, the purchase and its webhook event commit in one transaction. Success answers "
                        "CustomerInfo with the entitlement and its offer period, plus `offer_redemption`. Rate-limited per IP and "
                        "per app user (429 with `Retry-After`).\n\n" + OFFER_ERRORS),
        "tags": ["SDK"], "security": [{"bearerKey": []}],
        "requestBody": body("OfferCodeRequest", example={"app_user_id": "user-42", "code": "abcd-efgh-jkmn-pqrs"}),
        "responses": {
            "200": {"description": "Redeemed: CustomerInfo plus `offer_redemption`.", "content": json_content({"type": "object"})},
            "400": err_resp("Invalid code (7860), malformed body (7000) or app user ID (7256).", {"code": 7860, "message": "This code is not valid."}),
            "401": rresp("Unauthorized"),
            "402": err_resp("A paid offer (7868): claim it at `redeem_url`.", {"code": 7868, "message": "This offer has a price; claim it on the web to pay for it.",
                                                                             "redeem_url": "https://pay.example.com/redeem?ctx=offercodes&id=app_019a8f3c2b1e0123456789abcdef&code=SUMMER25"}),
            "403": err_resp("Expired (7861), inactive (7862), not eligible (7865), would downgrade (7866) or quota reached (7867).",
                            {"code": 7865, "message": "This offer is not available for your account."}),
            "409": err_resp("Exhausted (7863) or already redeemed (7864).", {"code": 7864, "message": "This code or offer has already been redeemed."}),
            "429": err_resp("Too many attempts (7429); see `Retry-After`.", {"code": 7429, "message": "Too many attempts; try again later."}),
            "500": rresp("InternalError"),
        },
    }
}


def page_op(op_id, summary, desc, method, sandbox):
    op = {"operationId": op_id, "summary": summary, "description": desc, "tags": ["Offer codes"], "security": []}
    if method == "get":
        op["parameters"] = [
            {"name": "ctx", "in": "query", "required": True, "schema": {"type": "string", "enum": ["offercodes"]}},
            {"name": "id", "in": "query", "required": True, "description": "App ID.", "schema": {"type": "string"}},
            {"name": "code", "in": "query", "required": False, "description": "Without it the page asks for one.", "schema": {"type": "string"}},
            {"name": "app_user_id", "in": "query", "required": False, "description": "Claim for this app user.", "schema": {"type": "string"}},
        ]
    else:
        op["requestBody"] = {"content": {"application/x-www-form-urlencoded": {"schema": {"type": "object", "properties": {
            "ctx": s(), "id": s(), "code": s(), "claim_id": s("From the page; makes a repeated submit harmless."),
            "email": s(), "app_user_id": s()}}}}}
    op["responses"] = {"200": {"description": "An HTML page.", "content": {"text/html": {"schema": {"type": "string"}}}},
                       "400": {"description": "Missing parameters."}, "404": {"description": "Unknown app or code (HTML page for a code)."},
                       "410": {"description": "Expired code (HTML page)."}, "429": {"description": "Too many attempts; see `Retry-After`."}}
    if method == "post" and not sandbox:
        op["responses"]["303"] = {"description": "A paid offer: to Stripe Checkout; the payment's webhook redeems the code."}
        op["responses"]["503"] = {"description": "A paid offer on a server without Stripe configured."}
    return op


SHOW = ("Apple's redemption URL shape on Redeem's host. Shows the offer and a claim form; **never redeems on GET**. "
        "Rate-limited per IP.")
CLAIM = ("The claim: a free offer is redeemed at once for the named app user or a new anonymous ID, and the success page shows "
         "the redemption link (also e-mailed); a paid offer continues to checkout.")
paths["/redeem"] = {
    "get": page_op("offerCodePage", "The offer-code redemption page", SHOW, "get", False),
    "post": page_op("claimOfferCode", "Claim an offer code", CLAIM, "post", False),
}
paths["/sandbox/redeem"] = {
    "get": page_op("sandboxOfferCodePage", "The offer-code page (sandbox)", SHOW + " Purchases are sandbox purchases.", "get", True),
    "post": page_op("sandboxClaimOfferCode", "Claim an offer code (sandbox)", CLAIM + " Paid offers show the built-in sandbox checkout.", "post", True),
}
paths["/sandbox/redeem/pay"] = {
    "post": page_op("sandboxPayOfferCode", "Pay for a paid offer in the sandbox checkout",
                    "No money moves; the purchase carries the offer's price and the code is redeemed with it.", "post", True),
}

# Settings the offer codes added to apps and products.
GROUP = {
    "subscription_group": s("Subscriptions: the group offers and upgrades are judged in (eligibility `new` means never "
                            "subscribed to the group); without it a product is a group of its own."),
    "group_level": {"type": "integer", "minimum": 1, "maximum": 100,
                    "description": "Subscriptions: the level within the group, 1 the highest; a lower level is a downgrade."},
}
QUOTA = {"offer_code_quota_per_quarter": {"type": "integer", "minimum": 0, "maximum": 100000000,
                                          "description": "Offer-code redemptions allowed per calendar quarter (UTC); default 1,000,000."}}
for name, extra in [("Product", GROUP), ("ProductInput", GROUP), ("ProductUpdate", GROUP), ("App", QUOTA), ("AppChanges", QUOTA)]:
    target = schemas[name]
    target.setdefault("properties", {}).update(extra)

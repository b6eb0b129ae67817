import Foundation
import RedeemStripe
import Testing

@Suite struct StripeCheckoutRequestTests {
    func subscription() throws -> StripeCheckoutRequest {
        StripeCheckoutRequest(
            secretKey: "sk_test_51PSyXaLkdIwHu7ixAbCdEf",
            idempotencyKey: "pur_01J4C2M5X8",
            mode: .subscription(try StripeRecurringInterval(iso8601: "P1M")),
            productName: "Pro Monthly",
            unitAmount: 999,
            currency: "USD",
            successURL: "https://pay.example.com/checkout/success?session_id={CHECKOUT_SESSION_ID}",
            cancelURL: "https://pay.example.com/checkout/cancel",
            customerEmail: "jenny+pro@example.com",
            clientReferenceID: "app_user_7f3c9a21",
            metadata: ["purchase_id": "pur_01J4C2M5X8", "app_id": "app_1a2b3c"]
        )
    }

    @Test func subscriptionRequest() throws {
        let request = try subscription().httpRequest()
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://api.stripe.com/v1/checkout/sessions")
        #expect(
            request.headers == [
                "Authorization": "Bearer sk_test_51PSyXaLkdIwHu7ixAbCdEf",
                "Stripe-Version": "2024-06-20",
                "Idempotency-Key": "pur_01J4C2M5X8",
                "Content-Type": "application/x-www-form-urlencoded",
            ])
        // Checked against Python's urllib.parse.quote (brackets kept in keys).
        #expect(
            request.body
                == [
                    "mode=subscription",
                    "line_items[0][price_data][currency]=usd",
                    "line_items[0][price_data][product_data][name]=Pro%20Monthly",
                    "line_items[0][price_data][unit_amount]=999",
                    "line_items[0][price_data][recurring][interval]=month",
                    "line_items[0][price_data][recurring][interval_count]=1",
                    "line_items[0][quantity]=1",
                    "success_url=https%3A%2F%2Fpay.example.com%2Fcheckout%2Fsuccess%3Fsession_id%3D%7BCHECKOUT_SESSION_ID%7D",
                    "cancel_url=https%3A%2F%2Fpay.example.com%2Fcheckout%2Fcancel",
                    "customer_email=jenny%2Bpro%40example.com",
                    "client_reference_id=app_user_7f3c9a21",
                    "metadata[app_id]=app_1a2b3c",
                    "metadata[purchase_id]=pur_01J4C2M5X8",
                    "subscription_data[metadata][app_id]=app_1a2b3c",
                    "subscription_data[metadata][purchase_id]=pur_01J4C2M5X8",
                ].joined(separator: "&"))
        #expect(request.bodyData == Data(request.body.utf8))
    }

    @Test func oneTimePaymentRequest() throws {
        let request = try StripeCheckoutRequest(
            secretKey: "rk_live_51PSyXaLkdIwHu7ixZyXwVu",
            idempotencyKey: "pur_01J4D9T3W6",
            mode: .payment,
            productName: "Lifetime – Unlock",
            unitAmount: 4999,
            currency: "eur",
            successURL: "https://pay.example.com/ok",
            cancelURL: "https://pay.example.com/cancel",
            metadata: ["note": "a b&c=d"]
        ).httpRequest()
        #expect(request.headers["Authorization"] == "Bearer rk_live_51PSyXaLkdIwHu7ixZyXwVu")
        #expect(
            request.body
                == [
                    "mode=payment",
                    "line_items[0][price_data][currency]=eur",
                    "line_items[0][price_data][product_data][name]=Lifetime%20%E2%80%93%20Unlock",
                    "line_items[0][price_data][unit_amount]=4999",
                    "line_items[0][quantity]=1",
                    "success_url=https%3A%2F%2Fpay.example.com%2Fok",
                    "cancel_url=https%3A%2F%2Fpay.example.com%2Fcancel",
                    "metadata[note]=a%20b%26c%3Dd",
                    "payment_intent_data[metadata][note]=a%20b%26c%3Dd",
                ].joined(separator: "&"))
    }

    @Test func descriptionsNeverShowTheSecretKey() throws {
        let request = try subscription()
        for text in [
            String(describing: request), String(reflecting: request),
            String(describing: try request.httpRequest()), String(reflecting: try request.httpRequest()),
        ] {
            #expect(!text.contains("sk_test"), "\(text)")
        }
        #expect(String(describing: try request.httpRequest()) == "POST https://api.stripe.com/v1/checkout/sessions")
    }

    @Test func formFieldsAreUnescapedAndOrdered() throws {
        let fields = try subscription().formFields
        #expect(fields.first?.key == "mode")
        #expect(fields.contains { $0.key == "success_url" && $0.value.hasSuffix("{CHECKOUT_SESSION_ID}") })
    }

    @Test(arguments: [
        ("P1W", StripeRecurringInterval.Unit.week, 1),
        ("P2W", .week, 2),
        ("P1M", .month, 1),
        ("P3M", .month, 3),
        ("P6M", .month, 6),
        ("P1Y", .year, 1),
        ("P1Y6M", .month, 18),
        ("P7D", .day, 7),
        ("P1W3D", .day, 10),
        ("P3Y", .year, 3),
        ("P36M", .month, 36),
    ])
    func isoPeriodsBecomeIntervals(period: String, unit: StripeRecurringInterval.Unit, count: Int) throws {
        let interval = try StripeRecurringInterval(iso8601: period)
        #expect(interval.unit == unit)
        #expect(interval.count == count)
    }

    @Test(arguments: ["", "P", "1M", "P0M", "PM", "P1M1W", "P1Y1D", "P1D1W", "P1H", "PT1H", "P-1M", "P4Y", "P37M", "P157W", "p1m"])
    func badPeriodsAreRejected(period: String) {
        #expect(throws: StripeRequestError.self) { try StripeRecurringInterval(iso8601: period) }
    }

    /// Managed Payments as Stripe documents it: `managed_payments[enabled]`, the product's tax code inline, none of the
    /// tax parameters Stripe then manages itself, and an API version of 2025-03-31.basil or later for that request.
    @Test func managedPaymentsRequest() throws {
        var checkout = try subscription()
        checkout.automaticTax = true
        checkout.managedPayments = true
        checkout.taxCode = "txcd_10000000"
        checkout.submitMessage = "By continuing, you agree to the [Terms](https://example.com/terms)."
        let request = try checkout.httpRequest()
        #expect(request.headers["Stripe-Version"] == "2025-03-31.basil")
        let fields = Dictionary(checkout.formFields.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(fields["managed_payments[enabled]"] == "true")
        #expect(fields["line_items[0][price_data][product_data][tax_code]"] == "txcd_10000000")
        #expect(fields["automatic_tax[enabled]"] == nil && fields["billing_address_collection"] == nil, "Stripe manages the tax")
        #expect(fields["custom_text[submit][message]"] == "By continuing, you agree to the [Terms](https://example.com/terms).")
        #expect(try subscription().httpRequest().headers["Stripe-Version"] == "2024-06-20", "other sessions keep the pinned version")
    }

    @Test func invalidRequestsAreRejectedBeforeSending() throws {
        let valid = try subscription()
        var cases: [(String, StripeCheckoutRequest)] = []
        func with(_ field: String, _ change: (inout StripeCheckoutRequest) -> Void) {
            var copy = valid
            change(&copy)
            cases.append((field, copy))
        }
        with("secretKey") { $0.secretKey = "pk_test_123" }
        with("idempotencyKey") { $0.idempotencyKey = "" }
        with("idempotencyKey") { $0.idempotencyKey = String(repeating: "k", count: 256) }
        with("productName") { $0.productName = "" }
        with("unitAmount") { $0.unitAmount = -1 }
        with("quantity") { $0.quantity = 0 }
        with("currency") { $0.currency = "usdollar" }
        with("successURL") { $0.successURL = "pay.example.com/ok" }
        with("cancelURL") { $0.cancelURL = "javascript:alert(1)" }
        with("clientReferenceID") { $0.clientReferenceID = String(repeating: "x", count: 201) }
        with("metadata") { $0.metadata = ["line_items[0]": "x"] }
        with("metadata") { $0.metadata = [String(repeating: "k", count: 41): "x"] }
        with("metadata[k]") { $0.metadata = ["k": String(repeating: "v", count: 501)] }
        with("metadata") { $0.metadata = Dictionary(uniqueKeysWithValues: (0...50).map { ("k\($0)", "v") }) }
        with("managedPayments") { $0.managedPayments = true }
        with("submitMessage") { $0.submitMessage = String(repeating: "m", count: 1201) }
        for (field, request) in cases {
            #expect(throws: StripeRequestError.self, "\(field)") { try request.httpRequest() }
            do {
                _ = try request.httpRequest()
            } catch {
                #expect(error.field == field)
            }
        }
    }

    @Test func createdSessionResponse() throws {
        let body = #"""
            {"id": "cs_test_b1Rk2pUoZq8yX4mVb6nCdJ0e", "object": "checkout.session", "mode": "subscription",
             "status": "open", "url": "https://checkout.stripe.com/c/pay/cs_test_b1Rk2pUoZq8yX4mVb6nCdJ0e#fidkdWxOYHwnPyd1blpxYHZxWjA0"}
            """#
        let session = try StripeCheckoutRequest.decodeResponse(statusCode: 200, body: Data(body.utf8))
        #expect(session.id == "cs_test_b1Rk2pUoZq8yX4mVb6nCdJ0e")
        #expect(session.url == "https://checkout.stripe.com/c/pay/cs_test_b1Rk2pUoZq8yX4mVb6nCdJ0e#fidkdWxOYHwnPyd1blpxYHZxWjA0")
    }

    @Test func stripeErrorResponse() {
        let body = #"""
            {"error": {"code": "parameter_invalid_integer", "doc_url": "https://stripe.com/docs/error-codes/parameter-invalid-integer",
             "message": "Invalid integer: 9.99", "param": "line_items[0][price_data][unit_amount]",
             "request_log_url": "https://dashboard.stripe.com/test/logs/req_Xq2Wc9Vn4Bm7Lk?t=1722517800", "type": "invalid_request_error"}}
            """#
        #expect(
            throws: StripeAPIError(
                type: "invalid_request_error", code: "parameter_invalid_integer", message: "Invalid integer: 9.99",
                param: "line_items[0][price_data][unit_amount]", statusCode: 400
            )
        ) {
            try StripeCheckoutRequest.decodeResponse(statusCode: 400, body: Data(body.utf8))
        }
        let auth = #"{"error": {"message": "Invalid API Key provided: sk_test_****AbCd", "type": "invalid_request_error"}}"#
        let error = StripeAPIError(statusCode: 401, body: Data(auth.utf8))
        #expect(error.code == nil)
        #expect(error.description == "Stripe 401 invalid_request_error: Invalid API Key provided: sk_test_****AbCd")
    }

    @Test func unexpectedResponses() {
        for (status, body) in [(502, "<html>Bad Gateway</html>"), (200, #"{"id": "cs_1", "url": null}"#), (200, "")] {
            do {
                _ = try StripeCheckoutRequest.decodeResponse(statusCode: status, body: Data(body.utf8))
                Issue.record("expected an error for \(status)")
            } catch {
                #expect(error.type == "unexpected_response")
                #expect(error.statusCode == status)
            }
        }
    }
}

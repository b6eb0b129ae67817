import Foundation
import Hummingbird
import RedeemCore
import RedeemStore

/// The offers page's forms: their values after a refusal, their fields read, and their refusals in the page's words.
extension ConsoleOffersController {
    /// The offer form; a ticked box is a field present with `yes`, an unticked one absent.
    static func offerForm(_ typed: [String: String]?) -> FormFields {
        guard let typed else {
            return FormFields(values: ["periods": "1", "price_currency": "USD", "eligible_new": "yes", "form_id": FormID.make()])
        }
        var values = ["form_id": formID(typed)]
        for name in ["reference_name", "periods", "price_amount", "price_currency", "starts_on", "ends_on"] { values[name] = typed[name] ?? "" }
        for name in ["eligible_new", "eligible_existing", "eligible_expired", "inactive"] where typed[name] == "yes" { values[name] = "yes" }
        return FormFields(values: values, open: true)
    }

    static func codeForm(_ typed: [String: String]?) -> FormFields {
        guard let typed else { return FormFields(values: ["max_redemptions": "1000", "form_id": FormID.make()]) }
        let values = [
            "code": typed["code"] ?? "", "max_redemptions": typed["max_redemptions"] ?? "", "expires_on": typed["expires_on"] ?? "",
            "form_id": formID(typed),
        ]
        return FormFields(values: values, open: true)
    }

    /// A refused form keeps its own ID: it made nothing, so its corrected submit is still its first.
    static func formID(_ typed: [String: String]) -> String {
        typed["form_id"].flatMap { FormID.isValid($0) ? $0 : nil } ?? FormID.make()
    }

    /// Payment modes in words.
    static func words(_ mode: OfferPaymentMode) -> String {
        switch mode {
        case .freeTrial: "Free trial"
        case .payAsYouGo: "Pay as you go (a price per period)"
        case .payUpFront: "Pay up front (one price for the whole offer)"
        }
    }

    /// A refusal naming the field by its label on the page's forms.
    static func describe(_ error: ValidationError) -> String {
        let labels = [
            "product_id": "Product", "offer_id": "Offer", "reference_name": "Reference name", "payment_mode": "Payment mode",
            "duration": "Duration of one period", "periods": "Periods", "price": "Price", "eligibility": "Who may redeem",
            "starts_at": "Starts", "ends_at": "Ends", "count": "How many", "expires_at": "Expires on", "code": "Code",
            "max_redemptions": "Redemptions allowed",
        ]
        guard let label = labels[error.field] else { return ConsolePages.describe(error) }
        return "\(label): \(error.reason)."
    }

    static func nonEmpty(_ text: String?) -> String? {
        text.map { $0.trimmingCharacters(in: .whitespaces) }.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A whole number from a field; nil when it is empty.
    static func number(_ text: String?, field: String) throws(ValidationError) -> Int? {
        guard let text = nonEmpty(text)?.replacingOccurrences(of: ",", with: "") else { return nil }
        guard let value = Int(text) else { throw ValidationError(field: field, reason: "must be a whole number") }
        return value
    }

    /// A date field (`YYYY-MM-DD`) as the start of that day, UTC; nil when it is empty.
    static func day(_ text: String?, field: String) throws(ValidationError) -> Date? {
        guard let text = nonEmpty(text) else { return nil }
        guard let date = ISODate.parse(text + "T00:00:00Z") else { throw ValidationError(field: field, reason: "must be a date") }
        return date
    }

    /// "1,000,000".
    static func grouped(_ value: Int) -> String {
        value.formatted(.number.grouping(.automatic).locale(Locale(identifier: "en_US")))
    }

    static func csv(_ text: String, filename: String) -> Response {
        Response(
            status: .ok,
            headers: [
                .contentType: "text/csv; charset=utf-8", .cacheControl: "no-store",
                .contentDisposition: "attachment; filename=\"\(filename)\"",
            ], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

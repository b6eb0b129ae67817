import Foundation

/// An error response body: `{"code": N, "message": "…", …}`. `code` may be an int or a numeric string.
struct BackendErrorBody: Decodable {
    struct RedemptionErrorInfo: Decodable {
        let obfuscatedEmail: String?
        let resent: Bool?

        enum CodingKeys: String, CodingKey {
            case obfuscatedEmail = "obfuscated_email"
            case resent
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            obfuscatedEmail = c.lenient(String.self, forKey: .obfuscatedEmail)
            resent = c.lenient(Bool.self, forKey: .resent)
        }
    }

    let code: Int?
    let message: String?
    let redemptionErrorInfo: RedemptionErrorInfo?
    let customerInfo: CustomerInfo?
    /// Where a paid offer code is claimed on the web (7868).
    let redeemURL: String?

    enum CodingKeys: String, CodingKey {
        case code, message
        case redemptionErrorInfo = "purchase_redemption_error_info"
        case customerInfo = "customer_info"
        case redeemURL = "redeem_url"
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let int = c.lenient(Int.self, forKey: .code) {
            code = int
        } else {
            code = c.lenient(String.self, forKey: .code).flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        }
        message = c.lenient(String.self, forKey: .message)
        redemptionErrorInfo = c.lenient(RedemptionErrorInfo.self, forKey: .redemptionErrorInfo)
        customerInfo = c.lenient(CustomerInfo.self, forKey: .customerInfo)
        redeemURL = c.lenient(String.self, forKey: .redeemURL)
    }

    /// Decodes `data`, or returns `nil` if it is not a JSON object.
    static func decode(_ data: Data) -> BackendErrorBody? {
        try? JSONCoding.decoder().decode(BackendErrorBody.self, from: data)
    }
}

import Foundation

/// Turns backend responses into results. Failures are mapped by the JSON `code`, not by HTTP status.
enum ResponseMapping {
    /// A redemption response, plus the customer info to cache (present for success and
    /// expired-subscription answers, and for a 200 whose `redemption_info` is unreadable).
    static func redemption(_ result: Result<HTTPResponse, RedeemError>) -> (WebPurchaseRedemptionResult, CustomerInfo?) {
        let response: HTTPResponse
        switch result {
        case .failure(let error): return (.error(error), nil)
        case .success(let value): response = value
        }

        if response.isSuccess {
            let decoder = JSONCoding.decoder()
            let info: CustomerInfo
            do {
                info = try decoder.decode(CustomerInfo.self, from: response.body)
            } catch {
                return (.error(.decoding(error)), nil)
            }
            do {
                let redemption = try decoder.decode(RedemptionInfoEnvelope.self, from: response.body).redemptionInfo
                return (.success(info, redemption), info)
            } catch {
                return (.error(.decoding(error)), info)
            }
        }

        let body = BackendErrorBody.decode(response.body)
        switch body?.code {
        case BackendErrorCode.invalidWebRedemptionToken:
            return (.invalidToken, nil)
        case BackendErrorCode.purchaseBelongsToOtherUser:
            return (.purchaseBelongsToOtherUser, nil)
        case BackendErrorCode.expiredWebRedemptionToken:
            guard let email = body?.redemptionErrorInfo?.obfuscatedEmail, !email.isEmpty else {
                return (.error(unexpected(response, body)), nil)
            }
            return (.expired(obfuscatedEmail: email, resent: body?.redemptionErrorInfo?.resent ?? false), nil)
        case BackendErrorCode.expiredSubscription:
            guard let info = body?.customerInfo else {
                return (.error(unexpected(response, body)), nil)
            }
            return (.expiredSubscription(info), info)
        default:
            return (.error(mappedError(response, body)), nil)
        }
    }

    static func offerCode(_ result: Result<HTTPResponse, RedeemError>) -> OfferCodeRedemptionResult {
        let response: HTTPResponse
        switch result {
        case .failure(let error): return .error(error)
        case .success(let value): response = value
        }

        if response.isSuccess {
            switch customerInfo(from: response) {
            case .success(let info): return .success(info)
            case .failure(let error): return .error(error)
            }
        }

        let body = BackendErrorBody.decode(response.body)
        switch body?.code {
        case BackendErrorCode.offerCodeInvalid: return .invalid
        case BackendErrorCode.offerCodeExpired: return .expired
        case BackendErrorCode.offerCodeInactive: return .inactive
        case BackendErrorCode.offerCodeExhausted: return .exhausted
        case BackendErrorCode.offerCodeAlreadyRedeemed: return .alreadyRedeemed
        case BackendErrorCode.offerCodeNotEligible: return .notEligible
        case BackendErrorCode.offerCodeWouldDowngrade: return .wouldDowngrade
        case BackendErrorCode.offerCodeQuotaReached: return .quotaReached
        case BackendErrorCode.offerCodePaymentRequired: return .paymentRequired(redeemURL: body?.redeemURL.flatMap(URL.init(string:)))
        default: return .error(mappedError(response, body))
        }
    }

    static func customerInfo(_ result: Result<HTTPResponse, RedeemError>) -> Result<CustomerInfo, RedeemError> {
        result.flatMap(customerInfo(from:))
    }

    private static func customerInfo(from response: HTTPResponse) -> Result<CustomerInfo, RedeemError> {
        guard response.isSuccess else {
            return .failure(mappedError(response, BackendErrorBody.decode(response.body)))
        }
        do {
            return .success(try JSONCoding.decoder().decode(CustomerInfo.self, from: response.body))
        } catch {
            return .failure(.decoding(error))
        }
    }

    /// The error for a response with no specific mapping.
    private static func mappedError(_ response: HTTPResponse, _ body: BackendErrorBody?) -> RedeemError {
        if response.statusCode == 429 {
            let retryAfter = RetryPolicy.retryAfter(response.header("Retry-After"), now: Date())
            return .rateLimited(status: response.statusCode, retryAfter: retryAfter)
        }
        return .server(status: response.statusCode, code: body?.code, message: body?.message)
    }

    private static func unexpected(_ response: HTTPResponse, _ body: BackendErrorBody?) -> RedeemError {
        .unexpectedResponse(status: response.statusCode, code: body?.code, message: body?.message)
    }

    private struct RedemptionInfoEnvelope: Decodable {
        let redemptionInfo: RedemptionInfo

        enum CodingKeys: String, CodingKey {
            case redemptionInfo = "redemption_info"
        }
    }
}

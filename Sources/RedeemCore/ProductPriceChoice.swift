import Foundation

/// Which of a product's prices a buyer pays, decided from facts: the currency the link asked for (`?currency=`), the
/// regions of the browser's `Accept-Language`, and the product's prices.
public enum ProductPriceChoice: Equatable, Sendable {
    /// Chosen, and why.
    case chosen(ProductPrice, Reason)
    /// The link asked for a currency the product has no price in; `available` lists those it has.
    case unavailable(requested: String, available: [String])
    /// The product has no price at all.
    case none

    public enum Reason: String, Sendable {
        case requested, region, defaultPrice
    }

    /// `?currency=` wins (any case); else the first region of `Accept-Language` (by weight) whose currency the product
    /// has; else the default price. A requested currency the product lacks is refused, never silently replaced.
    public static func choose(billing: ProductBilling, requested: String?, acceptLanguage: String?) -> ProductPriceChoice {
        guard let fallback = billing.defaultPrice else { return .none }
        if let requested = requested?.trimmingCharacters(in: .whitespaces), !requested.isEmpty {
            guard let price = billing.price(in: requested.uppercased()) else {
                return .unavailable(requested: String(requested.prefix(3)).uppercased(), available: billing.currencies)
            }
            return .chosen(price, .requested)
        }
        for region in regions(acceptLanguage: acceptLanguage) {
            if let currency = Currency.forRegion(region), let price = billing.price(in: currency) { return .chosen(price, .region) }
        }
        return .chosen(fallback, .defaultPrice)
    }

    /// The region subtags of `Accept-Language`, highest weight first (`de-CH;q=0.9` → `CH`); tags without a region
    /// (`de`) give none, so they fall through to the default.
    public static func regions(acceptLanguage: String?) -> [String] {
        AcceptLanguage.tags(acceptLanguage).compactMap { tag in
            let subtags = tag.replacingOccurrences(of: "_", with: "-").split(separator: "-").dropFirst()
            return subtags.first { $0.count == 2 && $0.allSatisfy { $0.isASCII && $0.isLetter } }.map { $0.uppercased() }
        }
    }
}

extension Currency {
    /// The currency a region (ISO 3166 alpha-2) mostly pays in, for choosing a buyer's price. Limits: countries only
    /// (no UN M.49 areas such as `419`), one currency per country (Switzerland is CHF, Panama USD), and only the
    /// countries listed; any other region, or a language tag without one, chooses nothing.
    public static func forRegion(_ region: String) -> String? { regionCurrencies[region.uppercased()] }

    private static let regionCurrencies: [String: String] = {
        var table: [String: String] = [:]
        let euro = "AT BE CY DE EE ES FI FR GR HR IE IT LT LU LV MT NL PT SI SK AD MC SM VA ME XK"
        for region in euro.split(separator: " ") { table[String(region)] = "EUR" }
        let others = """
            US:USD PR:USD EC:USD SV:USD PA:USD GB:GBP JP:JPY CH:CHF LI:CHF CA:CAD AU:AUD NZ:NZD SE:SEK NO:NOK DK:DKK IS:ISK \
            PL:PLN CZ:CZK HU:HUF RO:RON BG:BGN TR:TRY IL:ILS AE:AED SA:SAR QA:QAR KW:KWD BH:BHD OM:OMR JO:JOD EG:EGP ZA:ZAR \
            NG:NGN KE:KES MA:MAD IN:INR PK:PKR BD:BDT LK:LKR CN:CNY HK:HKD TW:TWD KR:KRW SG:SGD MY:MYR TH:THB ID:IDR PH:PHP \
            VN:VND MX:MXN BR:BRL AR:ARS CL:CLP CO:COP PE:PEN UY:UYU UA:UAH RS:RSD GE:GEL KZ:KZT
            """
        for pair in others.split(separator: " ") {
            let parts = pair.split(separator: ":")
            table[String(parts[0])] = String(parts[1])
        }
        return table
    }()
}

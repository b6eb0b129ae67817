/// An ISO 4217 currency: how many decimals its amounts have, and how Stripe's API takes them.
public struct Currency: Hashable, Sendable {
    public let code: String
    /// ISO 4217's minor-unit exponent: USD 2, JPY 0, KWD 3.
    public let exponent: Int
    /// How Stripe takes amounts in it; nil when Stripe cannot charge it.
    public let stripe: StripeUnits?

    /// Stripe's integer amounts (docs.stripe.com/currencies): "minor units" that are not always ISO's.
    public struct StripeUnits: Hashable, Sendable {
        /// Decimals of Stripe's integer amount: 2 for USD, 0 for JPY and MGA (zero-decimal), 3 for KWD, and 2 for ISK,
        /// which Stripe keeps two-decimal for backwards compatibility although only whole krónur can be charged.
        public let exponent: Int
        /// The step a charged amount must be a multiple of, in Stripe's units: 10 for three-decimal currencies (the last
        /// digit must be 0), 100 for ISK (whole krónur), 1 otherwise.
        public let step: Int
    }

    /// The currency an upper-case ISO 4217 code names, or nil for a code that is not an active currency.
    public init?(code: String) {
        guard code.utf8.count == 3, let exponent = Self.exponents[code] else { return nil }
        self.code = code
        self.exponent = exponent
        self.stripe = Self.stripeUnits(code: code, exponent: exponent)
    }

    private static func stripeUnits(code: String, exponent: Int) -> StripeUnits? {
        guard stripeCodes.contains(code) else { return nil }
        if stripeZeroDecimal.contains(code) { return StripeUnits(exponent: 0, step: 1) }
        if stripeThreeDecimal.contains(code) { return StripeUnits(exponent: 3, step: 10) }
        if code == "ISK" { return StripeUnits(exponent: 2, step: 100) }
        return StripeUnits(exponent: 2, step: 1)
    }

    /// ISO 4217's active currencies (list one, 2025), by exponent; funds and precious metals left out.
    private static let exponents: [String: Int] = {
        let zero = "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF"
        let three = "BHD IQD JOD KWD LYD OMR TND"
        let four = "CLF UYW"
        let two = """
            AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CNY COP \
            CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG HUF IDR ILS INR IRR \
            JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN \
            NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP \
            SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD UYU UZS VED VES WST XCD XCG YER ZAR ZMW ZWG
            """
        var table: [String: Int] = [:]
        for (codes, exponent) in [(zero, 0), (two, 2), (three, 3), (four, 4)] {
            for code in codes.split(separator: " ") { table[String(code)] = exponent }
        }
        return table
    }()

    /// The presentment currencies Stripe charges cards in (docs.stripe.com/currencies).
    private static let stripeCodes: Set<String> = Set(
        """
        USD AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BWP BYN BZD CAD CDF CHF CLP \
        CNY COP CRC CVE CZK DJF DKK DOP DZD EGP ETB EUR FJD FKP GBP GEL GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR ISK \
        JMD JOD JPY KES KGS KHR KMF KRW KWD KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MUR MVR MWK MXN MYR MZN \
        NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SEK SGD SHP SLE SOS SRD SZL \
        THB TJS TND TOP TRY TTD TWD TZS UAH UGX UYU UZS VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW
        """.split(separator: " ").map(String.init))
    private static let stripeZeroDecimal: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "JPY", "KMF", "KRW", "MGA", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    private static let stripeThreeDecimal: Set<String> = ["BHD", "JOD", "KWD", "OMR", "TND"]
}

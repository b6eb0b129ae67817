import Foundation
import RedeemKit

// What an app does first: configure RedeemKit and recognise a redemption link.
let redeem = Redeem(configuration: .init(apiKey: "rdm_pk_prod_example", baseURL: URL(string: "https://pay.example.com")!))
let link = URL(string: "https://pay.example.com/r/3q2-7XkToken")!
guard let redemption = redeem.webPurchaseRedemption(from: link) else { fatalError("the link was not recognised") }
print("RedeemKit installed: \(redemption)")

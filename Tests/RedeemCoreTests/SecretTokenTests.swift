import Foundation
import RedeemCore
import Testing

@Suite struct SecretTokenTests {
    @Test func tokensCarryTheRequestedEntropyAndAreURLSafe() {
        let token = SecretToken.generate(byteCount: 32)
        #expect(token.count == 43)  // 256 bits in base64url without padding
        #expect(token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        let many = Set((0..<1000).map { _ in SecretToken.generate(byteCount: 16) })
        #expect(many.count == 1000)
    }

    @Test func hashIsSHA256Hex() {
        #expect(SecretToken.hash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SecretToken.hash("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func constantTimeEquality() {
        #expect(SecretToken.constantTimeEquals("secret", "secret"))
        #expect(!SecretToken.constantTimeEquals("secret", "secreT"))
        #expect(!SecretToken.constantTimeEquals("secret", "secret2"))
        #expect(SecretToken.constantTimeEquals("", ""))
    }

    @Test func generatedKeysAreStoredOnlyAsHashes() {
        let key = GeneratedAPIKey(appID: "app_1", kind: .publicSandbox, now: Date())
        #expect(key.plaintext.hasPrefix("rdm_pk_sbx_"))
        #expect(key.hash == SecretToken.hash(key.plaintext))
        #expect(!key.record.displayPrefix.contains(key.plaintext))
        #expect(key.record.displayPrefix.count < key.plaintext.count - 20)
    }
}

import RedeemCore
import Testing

@Suite struct AppUserIDTests {
    @Test(arguments: ["user-1", "a@b.com", String(repeating: "x", count: 100), "$RCAnonymousID:0123456789abcdef0123456789abcdef", "Zoë"])
    func accepts(_ id: String) throws {
        #expect(try AppUserID(validating: id).rawValue == id)
    }

    @Test(arguments: [
        "", "null", "NULL", "none", "nil", "anonymous", "guest", "-1", "0", "[]", "{}", " ", "a/b",
        String(repeating: "x", count: 101), "$RCAnonymousID:", "$RCAnonymousID:0123456789ABCDEF0123456789abcdef",
        "$RCAnonymousID:0123456789abcdef", "line\nbreak",
        // Invisible look-alikes: a right-to-left override, zero-width space and joiner, a word joiner, a BOM.
        "admin\u{202E}txt", "jane\u{200B}doe", "jane\u{200D}doe", "jane\u{2060}", "\u{FEFF}jane", "bad\u{FFFD}byte",
    ])
    func rejects(_ id: String) {
        #expect(throws: ValidationError.self) { try AppUserID(validating: id) }
    }

    @Test func anonymousIDsAreWellFormedAndDistinct() throws {
        let a = AppUserID.anonymous()
        let b = AppUserID.anonymous()
        #expect(a != b)
        #expect(a.isAnonymous)
        #expect(try AppUserID(validating: a.rawValue) == a)
        #expect(a.rawValue.count == "$RCAnonymousID:".count + 32)
        #expect(try !AppUserID(validating: "user-1").isAnonymous)
    }
}

import Foundation
import RedeemCore
import RedeemTestSupport
import Testing

@testable import RedeemServer

/// RevenueCatUI's Customer Center (`GET /v1/customercenter/{app_user_id}`): a configuration both SDKs decode, whose
/// paths lead a web buyer to the app's portal.
@Suite struct CustomerCenterTests {
    typealias Decoding = RevenueCatCustomerCenterDecoding

    @Test(arguments: TestDatabases.available)
    func theCustomerCenterLeadsWebBuyersToThePortal(_ backend: TestBackend) async throws {
        // E-mail on (nothing is sent here): the portal can sign buyers in.
        try await TestServer.with(backend, mail: try EmailFlowTests.settings(port: 9)) { server in
            let app = try await server.createApp(
                ##"{"name": "Café Lumen", "support_email": "help@lumen.example", "brand_accent": "#0a7d52", "brand_background_dark": "#101418"}"##)
            let reply = try await server.send(
                .get, "/v1/customercenter/%24RCAnonymousID%3A8b4e2cbb6c1c4a1f9c0d2f1b3a6e7d90", key: app.publicProduction)
            #expect(reply.status == 200 && reply.headers[.contentType]?.hasPrefix("application/json") == true, "\(reply.body)")
            #expect(Decoding.androidProblems(reply.body) == [])
            let center = try Decoding.ios(reply.body).customerCenter
            #expect(center.support.email == "help@lumen.example")
            #expect(center.localization.localizedStrings.isEmpty && center.changePlans.isEmpty)
            // The app's checkout colours, those it set: buttons in its accent, labelled as its pages label them.
            let (light, dark) = (center.appearance.light, center.appearance.dark)
            #expect(light.accentColor == "#0a7d52" && light.buttonBackgroundColor == "#0a7d52" && light.buttonTextColor == "#ffffff")
            #expect(light.backgroundColor == nil && light.textColor == nil && dark.accentColor == nil && dark.buttonTextColor == nil)
            #expect(dark.backgroundColor == "#101418")

            let portal = PortalLinks.home(publicURL: server.deps.publicURL, appID: app.id)
            let management = try #require(center.screens["MANAGEMENT"])
            #expect(management.type.value == .management && management.paths.allSatisfy(\.keptByIOS))
            // "Cancel subscription" opens the subscription's `management_url` (the portal), in both SDKs.
            #expect(management.paths.map(\.type.value) == [.cancel, .customUrl])
            #expect(management.paths[1].url == portal && management.paths[1].openMethod?.value == .external)

            let noActive = try #require(center.screens["NO_ACTIVE"])
            #expect(noActive.type.value == .noActive && noActive.subtitle?.contains("Café Lumen") == true)
            let find = try #require(noActive.paths.first)
            #expect(noActive.paths.count == 1 && find.keptByIOS && find.type.value == .customUrl && find.url == portal)
            // Where it leads, someone who bought on the web finds the purchase by e-mail address.
            let page = try await server.send(.get, try #require(URL(string: portal)).path, key: nil)
            #expect(page.status == 200 && page.body.contains("Send me a sign-in link"))
        }
    }

    @Test(arguments: TestDatabases.available)
    func withoutEmailOrASupportAddressNeitherIsOffered(_ backend: TestBackend) async throws {
        try await TestServer.with(backend) { server in
            let app = try await server.createApp()
            let reply = try await server.send(.get, "/v1/customercenter/alice", key: app.secret)
            let center = try Decoding.ios(reply.body).customerCenter
            #expect(Decoding.androidProblems(reply.body) == [])
            // The Android check itself sees what kotlinx would drop or refuse.
            let dropped = Decoding.androidProblems(
                ##"{"customer_center": {"appearance": {"light": {"accent_color": "red"}}, "support": {}, "localization": {"locale": "en_US", "localized_strings": {}}, "screens": {"MANAGEMENT": {"type": "MANAGEMENT", "title": "t", "paths": [{"id": "x", "title": "x", "type": "NOPE"}]}}}}"##
            )
            #expect(dropped.count == 2 && dropped.contains { $0.hasPrefix("appearance.light.accent_color") }, "\(dropped)")
            // Empty: iOS builds no mailto: link from it and Android reads it as none, so neither offers "Contact support".
            #expect(center.support.email == "")
            // Without e-mail the portal cannot sign anyone in, so no path leads there; "Cancel subscription" opens the
            // subscription's own `management_url`.
            #expect(center.screens["NO_ACTIVE"]?.paths.isEmpty == true)
            #expect(center.screens["MANAGEMENT"]?.paths.map(\.type.value) == [.cancel])

            #expect(try await server.send(.get, "/v1/customercenter/alice", key: nil).status == 401)
            #expect(try await server.send(.get, "/v1/customercenter/null", key: app.publicProduction).status == 400)
            let admin = try await server.send(.get, "/v1/customercenter/alice", key: server.adminKey)
            #expect(admin.status == 403, "\(admin.body)")
        }
    }
}

import Foundation
import RedeemCore
import RedeemStore
import Testing

enum AppCases {
    static let all: [StoreCase] = [
        StoreCase("apps round-trip every setting") { store in
            var changes = AppChanges()
            changes.name = "Fitness"
            changes.iconURL = "https://example.com/icon.png"
            changes.iosTeamID = "ABCDE12345"
            changes.iosBundleID = "com.example.fitness"
            changes.androidPackageName = "com.example.fitness"
            changes.androidCertFingerprints = [Array(repeating: "0A", count: 32).joined(separator: ":")]
            changes.redemptionLinkPolicy = "sandbox_only"
            changes.restoreBehavior = "transfer_if_no_active_subscription"
            changes.redemptionLinkLifetimeSeconds = 900
            changes.supportEmail = "help@example.com"
            let app = try changes.makeApp(now: Fixture.now)
            try await store.createApp(app, keys: [])
            #expect(try await store.app(id: app.id) == app)
            #expect(try await store.apps().map(\.id) == [app.id])
        },
        StoreCase("app updates persist and unknown apps are not found") { store in
            var app = try await Fixture.app(store)
            app.name = "Renamed"
            app.restoreBehavior = .keepWithOriginal
            try await store.updateApp(app)
            #expect(try await store.app(id: app.id).name == "Renamed")
            #expect(try await store.app(id: app.id).restoreBehavior == .keepWithOriginal)
            await #expect { try await store.app(id: "app_missing") } throws: { ($0 as? StoreError)?.isNotFound == true }
            var ghost = app
            ghost.id = "app_missing"
            await #expect { try await store.updateApp(ghost) } throws: { ($0 as? StoreError)?.isNotFound == true }
        },
        StoreCase("a duplicate scheme is a conflict and writes nothing") { store in
            let app = try await Fixture.app(store)
            var clash = try {
                var c = AppChanges()
                c.name = "Other"
                return try c.makeApp(now: Fixture.now)
            }()
            clash.scheme = app.scheme
            let key = GeneratedAPIKey(appID: clash.id, kind: .secret, now: Fixture.now)
            await #expect { try await store.createApp(clash, keys: [key]) } throws: { ($0 as? StoreError)?.isConflict == true }
            #expect(try await store.activeKey(hash: key.hash) == nil)
            #expect(try await store.apps().count == 1)
        },
        StoreCase("keys are found by hash until revoked") { store in
            let app = try await Fixture.app(store)
            let keys = APIKeyKind.allCases.filter { $0 != .admin }.map { GeneratedAPIKey(appID: app.id, kind: $0, now: Fixture.now) }
            for key in keys { try await store.createKey(key) }
            let admin = GeneratedAPIKey(appID: nil, kind: .admin, label: "billing server", now: Fixture.now)
            try await store.createKey(admin)
            #expect(try await store.activeKey(hash: admin.hash)?.label == "billing server")
            #expect(try await store.keys(appID: app.id).allSatisfy { $0.label == nil })
            #expect(try await store.activeKey(hash: keys[0].hash) == keys[0].record)
            #expect(try await store.activeKey(hash: admin.hash)?.appID == nil)
            #expect(try await store.keys(appID: app.id).count == 3)
            #expect(try await store.keys(appID: nil).count == 4)
            try await store.revokeKey(id: keys[0].record.id, appID: app.id, at: Fixture.now)
            #expect(try await store.activeKey(hash: keys[0].hash) == nil)
            #expect(try await store.keys(appID: app.id).first { $0.id == keys[0].record.id }?.revokedAt == Fixture.now)
            await #expect { try await store.revokeKey(id: keys[1].record.id, appID: "app_other", at: Fixture.now) } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
            await #expect { try await store.createKey(GeneratedAPIKey(appID: "app_missing", kind: .secret, now: Fixture.now)) } throws: {
                ($0 as? StoreError)?.isNotFound == true
            }
        },
    ]
}

import Foundation
import RedeemCore
import RedeemServer
import RedeemStore
import RedeemTestSupport
import Synchronization
import Testing

/// `generateCodes` a chunk at a time: the CSV holds exactly the codes stored; a failure leaves nothing.
@Suite struct CodeBatchStreamTests {
    static let now = TestServer.start

    /// An app with a subscription product and an offer on it.
    static func offer(_ store: SQLStore) async throws -> Offer {
        var changes = AppChanges()
        changes.name = "Codes"
        let app = try changes.makeApp(now: now)
        try await store.createApp(app, keys: [])
        try await store.createProduct(
            Product(appID: app.id, id: "monthly", type: .subscription, period: "P1M", displayName: nil, entitlements: ["pro"], createdAt: now))
        let offer = Offer(
            id: Identifier.make(prefix: "ofr"), appID: app.id, productID: "monthly", referenceName: "Trial", paymentMode: .freeTrial,
            duration: .oneMonth, periods: 1, price: nil, eligibility: [.new, .existing, .expired], startsAt: nil, endsAt: nil, isActive: true,
            createdAt: now)
        try await store.createOffer(offer)
        return offer
    }

    static func redeem(_ store: SQLStore, _ appID: String, _ code: String, by user: String) async throws -> Bool {
        let result = try await store.redeemOfferCode(
            OfferCodeRedemptionRequest(
                appID: appID, code: code, claimant: try AppUserID(validating: user), channel: .sdk, isSandbox: true, payment: nil, now: now))
        if case .success = result { return true }
        return false
    }

    /// An output that fails on its `failing`th chunk.
    final class FailingOutput: CodeBatchOutput {
        struct Failed: Error {}
        let failing: Int
        var written = 0
        init(failing: Int) { self.failing = failing }
        func start(_ batch: OfferCodeBatch) { written = 0 }
        func write(_ chunk: OfferCodeChunk) throws {
            written += 1
            if written == failing { throw Failed() }
        }
        func finish() {}
    }

    @Test(arguments: TestDatabases.available)
    func aBatchOfSeveralChunksStoresExactlyTheCodesOfItsCSV(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let offer = try await Self.offer(store)
            let admin = AdminService(store: store, clock: ManualClock(Self.now), actor: "test")
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("codes-\(UUID().uuidString).csv")
            defer { try? FileManager.default.removeItem(at: file) }
            let phases = PhaseLog()
            // 10 codes of 17 characters in chunks of 4: three chunks.
            let batch = try await admin.generateCodes(
                appID: offer.appID, offerID: offer.id, count: 10, length: 17, expiresAt: Self.now.addingTimeInterval(30 * 86_400), chunkSize: 4,
                into: CodeCSVFile(url: file, publicURL: URL(string: "https://redeem.example.com")!), progress: phases.record)
            #expect(phases.all == ["generated 4", "generated 8", "generated 10", "stored 4", "stored 8", "stored 10"])
            let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(lines.first == "code,redemption_url")
            let rows = lines.dropFirst().map { $0.split(separator: ",").map(String.init) }
            let codes = rows.map { OfferCode.normalize($0[0]) ?? "" }
            #expect(codes.count == 10 && Set(codes).count == 10 && codes.allSatisfy { $0.count == 17 })
            for (row, code) in zip(rows, codes) {
                #expect(row[0] == OfferCode.grouped(code))
                #expect(row[1].hasSuffix("id=\(offer.appID)&code=\(code)"))
            }
            #expect(try await store.codeBatches(appID: offer.appID, offerID: offer.id).map(\.count) == [10])
            #expect(batch.count == 10)
            for (i, code) in codes.enumerated() { #expect(try await Self.redeem(store, offer.appID, code, by: "user\(i)")) }
            let audit = try await store.auditLog(AuditQuery(appID: offer.appID, action: "code_batch.create"), limit: 10).entries
            #expect(audit.map(\.objectID) == [batch.id])
        }
    }

    @Test(arguments: TestDatabases.available)
    func anOutputThatFailsOnALaterChunkLeavesNothing(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend) { store in
            let offer = try await Self.offer(store)
            let admin = AdminService(store: store, clock: ManualClock(Self.now), actor: "test")
            await #expect(throws: FailingOutput.Failed.self) {
                try await admin.generateCodes(
                    appID: offer.appID, offerID: offer.id, count: 10, expiresAt: Self.now.addingTimeInterval(86_400), chunkSize: 4,
                    into: FailingOutput(failing: 3))
            }
            #expect(try await store.codeBatches(appID: offer.appID, offerID: offer.id).isEmpty)
            #expect(try await store.auditLog(AuditQuery(appID: offer.appID, action: "code_batch.create"), limit: 10).entries.isEmpty)
        }
    }
}

/// Progress calls, in order.
final class PhaseLog: Sendable {
    private let log = Mutex<[String]>([])
    @Sendable func record(_ phase: String, _ done: Int) { log.withLock { $0.append("\(phase) \(done)") } }
    var all: [String] { log.withLock { $0 } }
}

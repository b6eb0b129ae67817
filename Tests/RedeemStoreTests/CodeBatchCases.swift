import Foundation
import RedeemCore
import RedeemStore
import RedeemTestSupport
import Synchronization
import Testing

/// Batches stored a chunk at a time: every chunk lands, or (one failing, late) nothing does.
enum CodeBatchCases {
    typealias C = OfferCases

    /// Chunks handed over as given; the chunk at `failing` throws instead.
    final class Chunks: CodeHashChunks {
        struct Failed: Error {}
        let chunks: [[String]]
        let failing: Int?
        private let position = Mutex(0)

        init(_ chunks: [[String]], failing: Int? = nil) {
            self.chunks = chunks
            self.failing = failing
        }

        func rewind() { position.withLock { $0 = 0 } }

        func next() throws -> [String]? {
            try position.withLock { index in
                guard index < chunks.count else { return nil }
                defer { index += 1 }
                if index == failing { throw Failed() }
                return chunks[index]
            }
        }
    }

    static func batch(_ offer: Offer, count: Int) -> OfferCodeBatch {
        OfferCodeBatch(
            id: Identifier.make(prefix: "batch"), appID: offer.appID, offerID: offer.id, count: count,
            expiresAt: C.now.addingTimeInterval(30 * C.day),
            createdAt: C.now)
    }

    static func audit(_ batch: OfferCodeBatch) -> AuditEntry {
        AuditEntry(at: C.now, actor: "test", action: "code_batch.create", objectType: "code_batch", objectID: batch.id, appID: batch.appID)
    }

    /// Nothing of `batch` was stored: no batch, none of `codes` redeems, no audit entry.
    static func expectNothing(_ store: SQLStore, _ batch: OfferCodeBatch, codes: [String]) async throws {
        #expect(try await store.codeBatches(appID: batch.appID, offerID: batch.offerID).contains { $0.id == batch.id } == false)
        for code in codes {
            #expect(C.failure(try await C.redeem(store, batch.appID, code, by: "u-\(code)")) == .invalid)
        }
        let audit = try await store.auditLog(AuditQuery(appID: batch.appID, action: "code_batch.create"), limit: 10).entries
        #expect(audit.contains { $0.objectID == batch.id } == false)
    }

    static let all: [StoreCase] = [
        StoreCase("a batch handed over in three chunks stores every code, with its audit entry") { store in
            let app = try await C.setUp(store)
            let offer = try await C.makeOffer(store, appID: app.id)
            let codes = OfferCode.generate(count: 10)
            let batch = batch(offer, count: codes.count)
            let list = CodeHashList(codes.map(OfferCode.storedHash).sorted(), chunkSize: 4)
            let seen = Mutex<[Int]>([])
            try await store.createCodeBatch(batch, hashes: list, audit: audit(batch)) { done in seen.withLock { $0.append(done) } }
            #expect(seen.withLock { $0 } == [4, 8, 10])
            #expect(try await store.codeBatches(appID: app.id, offerID: offer.id).map(\.count) == [10])
            for (i, code) in codes.enumerated() { #expect(try await C.redeem(store, app.id, code, by: "user\(i)").isSuccess) }
            let audit = try await store.auditLog(AuditQuery(appID: app.id, action: "code_batch.create"), limit: 10).entries
            #expect(audit.map(\.objectID) == [batch.id])
        },
        StoreCase("a later chunk that fails, collides or overruns the count leaves no batch, no codes and no audit entry") { store in
            let app = try await C.setUp(store)
            let offer = try await C.makeOffer(store, appID: app.id)
            let (_, earlier) = try await C.makeBatch(store, offer, count: 1)
            let codes = OfferCode.generate(count: 9)
            let hashes = codes.map(OfferCode.storedHash)
            let chunks = [Array(hashes[0..<3]), Array(hashes[3..<6]), Array(hashes[6..<9])]

            // The third chunk throws.
            let failing = batch(offer, count: 9)
            await #expect(throws: Chunks.Failed.self) {
                try await store.createCodeBatch(failing, hashes: Chunks(chunks, failing: 2), audit: audit(failing))
            }
            try await expectNothing(store, failing, codes: codes)

            // The third chunk holds a code another batch has.
            let colliding = batch(offer, count: 10)
            await #expect(throws: StoreError.self) {
                try await store.createCodeBatch(
                    colliding, hashes: Chunks(chunks + [[OfferCode.storedHash(earlier[0])]]), audit: audit(colliding))
            }
            try await expectNothing(store, colliding, codes: codes)

            // More (or fewer) codes than the batch says.
            for count in [8, 10] {
                let wrong = batch(offer, count: count)
                await #expect(throws: StoreError.self) { try await store.createCodeBatch(wrong, hashes: Chunks(chunks), audit: audit(wrong)) }
                try await expectNothing(store, wrong, codes: codes)
            }
            // The earlier batch's code still works.
            #expect(try await C.redeem(store, app.id, earlier[0], by: "first").isSuccess)
        },
    ]
}

/// Migration 30 cuts the stored hashes to 128 bits and names batches by number: codes stored before it still redeem
/// (and those redeemed stay redeemed), batches keep their counts and switches, and later batches number on.
@Suite struct CompactOfferCodesMigrationTests {
    typealias C = OfferCases

    @Test(arguments: TestDatabases.available)
    func codesStoredBeforeStillRedeem(_ backend: TestBackend) async throws {
        try await TestDatabases.withStore(backend, migratedBefore: 30) { store in
            let app = try await C.setUp(store)
            let offer = try await C.makeOffer(store, appID: app.id)
            // Two batches as version 29 stores them (the later one created first, to see refs follow creation), a
            // code of the first already redeemed; 300 codes so that the copy is more than a page or two.
            let first = (batch: "batch_a", codes: OfferCode.generate(count: 200))
            let second = (batch: "batch_b", codes: OfferCode.generate(count: 100))
            for (batch, codes, created) in [(second.batch, second.codes, C.now.addingTimeInterval(60)), (first.batch, first.codes, C.now)] {
                try await store.database.transaction { connection in
                    try await connection.query(
                        """
                        INSERT INTO offer_code_batches (id, app_id, offer_id, code_count, expires_at, active, created_at)
                        VALUES (\(batch), \(app.id), \(offer.id), \(codes.count), \(C.now.addingTimeInterval(30 * C.day)), 1, \(created))
                        """)
                    for code in codes {
                        let redeemed = code == first.codes[0]
                        try await connection.query(
                            """
                            INSERT INTO offer_codes (code_hash, batch_id, redeemed_at, redeemed_by)
                            VALUES (\(SecretToken.hash(code)), \(batch), \(redeemed ? C.now : nil), \(redeemed ? "early" : nil))
                            """)
                    }
                }
            }
            try await store.migrate(logger: TestDatabases.logger)

            let rows = try await store.database.read { try await $0.query("SELECT code_hash, batch_ref, redeemed_by FROM offer_codes") }
            #expect(rows.count == 300)
            let stored = Set(try rows.map { try $0.string("code_hash") })
            #expect(stored == Set((first.codes + second.codes).map(OfferCode.storedHash)))
            let refs = try await store.database.read { try await $0.query("SELECT id, ref FROM offer_code_batches ORDER BY id") }
            #expect(try refs.map { "\(try $0.string("id")) \(try $0.int("ref"))" } == ["batch_a 1", "batch_b 2"])
            #expect(try rows.filter { try $0.int("batch_ref") == 1 }.count == 200)

            // The one redeemed stays so; the others redeem once.
            #expect(C.failure(try await C.redeem(store, app.id, first.codes[0], by: "late")) == .alreadyRedeemed)
            #expect(try await C.redeem(store, app.id, OfferCode.grouped(first.codes[1]), by: "u1").isSuccess)
            #expect(try await C.redeem(store, app.id, second.codes[0], by: "u2").isSuccess)
            #expect(C.failure(try await C.redeem(store, app.id, second.codes[0], by: "u3")) == .alreadyRedeemed)
            let counts = try await store.codeBatches(appID: app.id).map { "\($0.id) \($0.redeemed ?? -1)/\($0.count)" }
            #expect(counts.sorted() == ["batch_a 1/200", "batch_b 1/100"])

            // Switched off, an old batch's codes stop working.
            _ = try await store.setCodeBatchActive(appID: app.id, id: second.batch, active: false)
            #expect(C.failure(try await C.redeem(store, app.id, second.codes[1], by: "u4")) == .inactive)

            // A new batch numbers on, and its codes redeem.
            let (batch, codes) = try await C.makeBatch(store, offer, count: 3)
            let ref = try await store.database.read { try await $0.first("SELECT ref FROM offer_code_batches WHERE id = \(batch.id)") }
            #expect(try ref?.int("ref") == 3)
            #expect(try await C.redeem(store, app.id, codes[2], by: "u5").isSuccess)
        }
    }
}

import Foundation
import RedeemCore
import RedeemStore
import Synchronization

/// Where a batch's codes go as they are drawn, a chunk at a time in order, before any of them is stored.
public protocol CodeBatchOutput: AnyObject {
    /// Starts (or, for a second draw after a collision, starts over) the output of `batch`.
    func start(_ batch: OfferCodeBatch) throws
    func write(_ chunk: OfferCodeChunk) throws
    /// Every code was written: make them safe before they are stored.
    func finish() throws
}

/// A batch's codes as a CSV file, one grouped code per line, with its redemption URL when the public URL is known.
public final class CodeCSVFile: CodeBatchOutput {
    public let url: URL
    let publicURL: URL?
    private var handle: FileHandle?
    private var base: [UInt8]?

    public init(url: URL, publicURL: URL?) {
        self.url = url
        self.publicURL = publicURL
    }

    deinit { try? handle?.close() }

    public func start(_ batch: OfferCodeBatch) throws {
        try handle?.close()
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        handle = try FileHandle(forWritingTo: url)
        base = publicURL.map { Array(OfferCodeLinks.redeemPageBase(publicURL: $0, appID: batch.appID).utf8) }
        try handle?.write(contentsOf: Data((base == nil ? "code\n" : "code,redemption_url\n").utf8))
    }

    public func write(_ chunk: OfferCodeChunk) throws {
        // In pieces of 8,192 lines (about 1 MB with URLs), each line written in place.
        let line = chunk.length + 4 + (base.map { $0.count + chunk.length + 1 } ?? 0)
        for start in stride(from: 0, to: chunk.count, by: 8192) {
            let end = min(chunk.count, start + 8192)
            let out = [UInt8](unsafeUninitializedCapacity: (end - start) * line) { out, initialized in
                var at = out.baseAddress!
                for i in start..<end {
                    at += chunk.writeGrouped(i, to: at)
                    if let base {
                        at.pointee = UInt8(ascii: ",")
                        at += 1
                        base.withUnsafeBufferPointer { at.update(from: $0.baseAddress!, count: $0.count) }
                        at += base.count
                        at += chunk.writeCode(i, to: at)
                    }
                    at.pointee = UInt8(ascii: "\n")
                    at += 1
                }
                initialized = at - out.baseAddress!
            }
            try handle?.write(contentsOf: out)
        }
    }

    public func finish() throws {
        try handle?.synchronize()
        try handle?.close()
        handle = nil
    }
}

/// The codes kept in memory (the admin API answers with all of them at once).
public final class CodeList: CodeBatchOutput {
    public private(set) var codes: [String] = []

    public init() {}

    public func start(_ batch: OfferCodeBatch) {
        codes = []
        codes.reserveCapacity(batch.count)
    }

    public func write(_ chunk: OfferCodeChunk) { codes += chunk.codes }
    public func finish() {}
}

/// A batch's code digests in a temporary file as sorted runs (one per chunk drawn), handed to the store merged, in
/// ascending order, a chunk at a time: memory holds a chunk, not the batch.
final class SortedDigestRuns: CodeHashChunks {
    private struct Run {
        var offset: UInt64
        var left: Int
        var buffer: [CodeDigest] = []
        var index = 0
    }

    private struct State {
        var handle: FileHandle
        var written: UInt64 = 0
        var runs: [Run] = []
        var cursors: [Run] = []
    }

    private let url: URL
    private let state: Mutex<State>
    /// Hashes per chunk handed to the store, and digests read from a run at a time.
    let chunkSize: Int
    let readSize = 4096

    init(chunkSize: Int) throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-digests-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: url.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path])
        }
        state = Mutex(State(handle: try FileHandle(forUpdating: url)))
        self.chunkSize = max(1, chunkSize)
    }

    /// Closes and deletes the file.
    func remove() {
        state.withLock { try? $0.handle.close() }
        try? FileManager.default.removeItem(at: url)
    }

    /// Appends a chunk's digests, sorted, as a run.
    func append(sorted digests: [CodeDigest]) throws {
        try state.withLock { state in
            try state.handle.seek(toOffset: state.written)
            try digests.withUnsafeBytes { try state.handle.write(contentsOf: $0) }
            state.runs.append(Run(offset: state.written, left: digests.count))
            state.written += UInt64(digests.count * MemoryLayout<CodeDigest>.stride)
        }
    }

    func rewind() {
        state.withLock { $0.cursors = $0.runs }
    }

    func next() throws -> [String]? {
        var out: [String] = []
        out.reserveCapacity(chunkSize)
        try merge { out.append($0.hex) }
        return out.isEmpty ? nil : out
    }

    /// The rows written straight from the digests, without a `String` per hash.
    func nextRows(suffix: [UInt8]) throws -> (rows: [UInt8], count: Int)? {
        let row = 32 + suffix.count
        var count = 0
        let rows = try [UInt8](unsafeUninitializedCapacity: chunkSize * row) { out, initialized in
            try suffix.withUnsafeBufferPointer { suffix in
                count = try merge { digest in
                    let at = out.baseAddress! + count * row
                    digest.writeHex(to: at)
                    (at + 32).update(from: suffix.baseAddress!, count: suffix.count)
                    count += 1
                }
            }
            initialized = count * row
        }
        return count == 0 ? nil : (rows, count)
    }

    /// Hands up to `chunkSize` digests, the smallest left first, to `emit`; returns how many.
    @discardableResult
    private func merge(_ emit: (CodeDigest) -> Void) throws -> Int {
        try state.withLock { state in
            var emitted = 0
            while emitted < chunkSize {
                var best = -1
                for r in state.cursors.indices {
                    if state.cursors[r].index == state.cursors[r].buffer.count {
                        try refill(&state.cursors[r], from: state.handle)
                        if state.cursors[r].buffer.isEmpty { continue }
                    }
                    if best < 0 || state.cursors[r].buffer[state.cursors[r].index] < state.cursors[best].buffer[state.cursors[best].index] {
                        best = r
                    }
                }
                guard best >= 0 else { break }
                emit(state.cursors[best].buffer[state.cursors[best].index])
                state.cursors[best].index += 1
                emitted += 1
            }
            return emitted
        }
    }

    private func refill(_ run: inout Run, from handle: FileHandle) throws {
        let n = min(readSize, run.left)
        run.index = 0
        guard n > 0 else {
            run.buffer = []
            return
        }
        try handle.seek(toOffset: run.offset)
        let stride = MemoryLayout<CodeDigest>.stride
        guard let data = try handle.read(upToCount: n * stride), data.count == n * stride else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: url.path])
        }
        run.buffer = data.withUnsafeBytes { raw in (0..<n).map { raw.loadUnaligned(fromByteOffset: $0 * stride, as: CodeDigest.self) } }
        run.offset += UInt64(n * stride)
        run.left -= n
    }
}

import CSQLite3
import Foundation
import SQLKernel
import Synchronization

/// Checkpoints the WAL on its own thread and connection, so the writer never stops to copy pages back into the
/// database file and sync it (with a large file, that copy is random writes and the writer's worst stall).
///
/// The writer's WAL hook reports the log's size after each commit (`walGrew`); past `threshold` frames this thread
/// runs PASSIVE checkpoints, which never block the writer. Each pass copies what was committed before it began, so
/// the passes shrink until the log is fully copied; the writer's next commit then starts the log over from its
/// beginning. Only if the log still passes `restartLimit` (passes never catching up, or a reader holding an old
/// snapshot) does a RESTART checkpoint hold the writer back, briefly and at most once a second, to bound the log.
///
/// `@unchecked Sendable`: `pending` and `stopping` are guarded by `condition` (as are writes to `lastFrames` and
/// `caughtUp`, so a commit's report and a pass's verdict never interleave); `db` and `lastRestart` are used only on
/// the thread.
@available(macOS 15.0, iOS 18.0, *)
final class FastSQLiteCheckpointer: @unchecked Sendable {
    private let condition = NSCondition()
    private var pending = false
    private var stopping = false
    private var finished = false
    private var onFinish: [CheckedContinuation<Void, Never>] = []
    private var db: OpaquePointer?
    private var lastRestart: ContinuousClock.Instant?
    let threshold: Int32
    let restartLimit: Int32
    /// Checkpoint passes run so far, RESTARTs among them, the log's size at the last commit, and whether the last
    /// pass copied the whole log (tests).
    let passes = Atomic<Int>(0)
    let restarts = Atomic<Int>(0)
    let lastFrames = Atomic<Int32>(0)
    let caughtUp = Atomic<Bool>(false)

    /// `restartLimit`: 16 × `threshold` unless given.
    init(path: String, threshold: Int32 = 4000, restartLimit: Int32? = nil) throws {
        self.threshold = threshold
        self.restartLimit = restartLimit ?? threshold * 16
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteEngineError(.sqlite(rc, message))
        }
        // Only a RESTART waits (PASSIVE never does): for the writer's lock, then for readers of old snapshots, while
        // holding that lock. A short wait bounds how long it can hold the writer back; a busy RESTART is tried again
        // after a later commit.
        sqlite3_busy_timeout(handle, 200)
        db = handle
        let thread = Thread { [self] in
            csqlite3_name_thread("sqlite-ckpt")
            runLoop()
        }
        thread.start()
    }

    /// The writer's WAL hook: the log holds `frames` frames after a commit. Called on the writer's thread.
    func walGrew(to frames: Int32) {
        condition.lock()
        lastFrames.store(frames, ordering: .relaxed)
        caughtUp.store(false, ordering: .relaxed)  // the commit added frames no pass has copied
        let due = frames >= threshold
        if due { pending = true }
        condition.unlock()
        if due { condition.signal() }
    }

    /// Stops the thread after any running checkpoint and closes its connection; returns when it has.
    func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            condition.lock()
            stopping = true
            let done = finished
            if !done { onFinish.append(continuation) }
            condition.unlock()
            condition.signal()
            if done { continuation.resume() }
        }
    }

    private func runLoop() {
        while true {
            condition.lock()
            while !pending && !stopping { condition.wait() }
            let stop = stopping
            pending = false
            condition.unlock()
            if stop { break }
            checkpoint()
        }
        sqlite3_close_v2(db)
        db = nil
        condition.lock()
        finished = true
        let waiting = onFinish
        onFinish = []
        condition.unlock()
        for continuation in waiting { continuation.resume() }
    }

    private func checkpoint() {
        var log: Int32 = 0
        var copied: Int32 = 0
        var before: Int32 = -1
        for _ in 0..<16 {
            var rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
            if rc == SQLITE_OK, log < 0 {
                // A connection finds the database in WAL mode only at a read; until then a checkpoint does nothing.
                _ = sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", nil, nil, nil)
                rc = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
            }
            passes.add(1, ordering: .relaxed)
            // Caught up: this pass copied the whole log, and no commit reported a longer one since it began.
            condition.lock()
            let latest = lastFrames.load(ordering: .relaxed)
            caughtUp.store(rc == SQLITE_OK && log >= 0 && log == copied && latest <= log, ordering: .relaxed)
            condition.unlock()
            // Busy (another checkpoint runs) or an error: the next commit's report tries again.
            guard rc == SQLITE_OK, log > copied else { return }
            if copied == before { break }  // no progress: a reader's old snapshot holds the rest back
            before = copied
        }
        guard log >= restartLimit else { return }
        // A RESTART holds the writer back while it waits (at most the 200 ms busy timeout): at most one a second.
        let now = ContinuousClock.now
        if let last = lastRestart, now - last < .seconds(1) { return }
        lastRestart = now
        _ = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_RESTART, &log, &copied)
        passes.add(1, ordering: .relaxed)
        restarts.add(1, ordering: .relaxed)
    }
}

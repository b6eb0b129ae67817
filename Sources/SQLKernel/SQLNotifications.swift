/// What an engine announces as transactions commit (PostgreSQL's `LISTEN`/`NOTIFY`), for instances that keep derived
/// state in memory instead of asking the database on every request. SQLite has no such feed (it has `changeToken`).
public protocol SQLNotificationSource: Sendable {
    /// Listens on `channel` until the calling task is cancelled, reconnecting after a failure, and tells `sink` what it
    /// learns, in order.
    func listen(channel: String, sink: @escaping @Sendable (SQLNotificationEvent) -> Void) async
}

public enum SQLNotificationEvent: Sendable, Equatable {
    /// Listening (again). Whatever was announced before this may have been missed.
    case listening
    /// One announcement, in commit order.
    case payload(String)
    /// Every announcement committed before `sentAt` has been reported.
    case caughtUp(sentAt: ContinuousClock.Instant)
    /// The feed stopped (connection lost, or it cannot be trusted): nothing is known until `.listening` again.
    case lost
}

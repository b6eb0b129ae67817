import Foundation
import NIOConcurrencyHelpers

/// Who is writing, and the audit entry their next write carries. The admin API and the CLI set the actor at their
/// edge; `AdminService` names what it is doing with `recording`; the next `SQLStore` write transaction of the same task
/// inserts the entry, so the change and its record commit together (or neither does).
public enum AuditScope {
    /// `key:<key id>`, `operator:<e-mail>`, `cli`; nil outside any of them.
    @TaskLocal public static var actor: String?
    @TaskLocal static var pending: Pending?

    /// Runs `body`, whose first committed write also records the entry. `objectID` may be filled in later (see
    /// `identify`) for objects whose ID the write makes.
    public static func recording<T: Sendable>(
        action: String, objectType: String, objectID: String, appID: String?, detail: String? = nil, now: Date,
        _ body: () async throws -> T
    ) async throws -> T {
        let entry = AuditEntry(
            at: now, actor: actor ?? "unknown", action: action, objectType: objectType, objectID: objectID, appID: appID, detail: detail)
        return try await $pending.withValue(Pending(entry)) { try await body() }
    }

    /// The entry waiting for a write, taken once that write has committed.
    final class Pending: Sendable {
        private let state: NIOLockedValueBox<AuditEntry?>
        init(_ entry: AuditEntry) { state = NIOLockedValueBox(entry) }
        var entry: AuditEntry? { state.withLockedValue { $0 } }
        func committed() { state.withLockedValue { $0 = nil } }
    }
}

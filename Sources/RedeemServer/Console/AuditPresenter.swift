import Foundation
import RedeemCore
import RedeemStore

/// The audit log page: each entry with its actor in words, the filters as chosen, and the link to older entries.
enum AuditPresenter {
    static func values(_ page: ConsoleService.AuditPage, query: AuditQuery) -> AuditLogPage {
        let appID = query.appID
        var values = AuditLogPage(
            entries: page.entries.map { entry in
                AuditLogPage.Entry(
                    at: ConsolePresenter.date(entry.at), actor: actor(entry.actor, names: page.actorNames), action: entry.action,
                    object: "\(entry.objectType) \(entry.objectID)", detail: entry.detail ?? "")
            },
            actors: page.actors.map { Choice(value: $0, label: actor($0, names: page.actorNames), selected: $0 == query.actor) },
            actions: page.actions.map { Choice(value: $0, label: $0, selected: $0 == query.action) },
            object: query.object ?? "", filtered: query.actor != nil || query.action != nil || query.object != nil)
        if page.more, let last = page.entries.last {
            var next = URLComponents()
            next.path = "/console/apps/\(appID)/audit"
            next.queryItems = [
                query.actor.map { URLQueryItem(name: "actor", value: $0) }, query.action.map { URLQueryItem(name: "action", value: $0) },
                query.object.map { URLQueryItem(name: "object", value: $0) },
                URLQueryItem(name: "before", value: "\(Int64((last.at.timeIntervalSince1970 * 1000).rounded()))_\(last.id)"),
            ].compactMap { $0 }
            values.older = next.string
        }
        if query.before != nil { values.newest = "/console/apps/\(appID)/audit" }
        return values
    }

    /// Who made a change, in words: an operator's address, a key's label, the CLI.
    static func actor(_ raw: String, names: [String: String]) -> String {
        if let name = names[raw] { return name }
        if raw.hasPrefix("operator:") { return String(raw.dropFirst("operator:".count)) }
        if raw == "cli" { return "the CLI" }
        return raw
    }

    /// `before=<milliseconds>_<entry id>`.
    static func cursor(_ text: String) -> (at: Date, id: String)? {
        guard let split = text.firstIndex(of: "_"), let millis = Int64(text[..<split]) else { return nil }
        let id = String(text[text.index(after: split)...])
        guard id.hasPrefix("aud_"), id.count <= 64 else { return nil }
        return (Date(timeIntervalSince1970: Double(millis) / 1000), id)
    }
}

import Hummingbird
import NIOConcurrencyHelpers

/// The methods each registered path answers, to tell "no such path" (404) from "not with this method" (405, with an
/// `Allow` header). Filled once the router has its routes; read only for requests the router did not match.
final class RouteTable: Sendable {
    private let patterns = NIOLockedValueBox<[(segments: [Substring], methods: Set<String>)]>([])

    func load(_ routes: [Router<AppRequestContext>.RouteDescription]) {
        var byPath: [String: Set<String>] = [:]
        for route in routes { byPath["\(route.path)", default: []].insert(route.method.rawValue) }
        patterns.withLockedValue { $0 = byPath.map { (Self.segments($0.key), $0.value) } }
    }

    /// The methods `path` answers; empty when no route has that shape. As the router does, a literal segment wins over
    /// a parameter: `/webhooks/deliveries` is not `/webhooks/{endpoint_id}`.
    func methods(for path: String) -> Set<String> {
        let parts = Self.segments(path)
        let matching = patterns.withLockedValue { $0.filter { Self.matches($0.segments, parts) } }
        let literals = { (segments: [Substring]) in zip(segments, parts).filter { $0.0 == $0.1 }.count }
        guard let best = matching.map({ literals($0.segments) }).max() else { return [] }
        return matching.filter { literals($0.segments) == best }.reduce(into: Set<String>()) { $0.formUnion($1.methods) }
    }

    /// A trailing slash is an empty last segment: `/offers/` is `/offers/{offer_id}` with an empty ID, not `/offers`.
    private static func segments(_ path: String) -> [Substring] {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if path.count > 1, path.hasSuffix("/") { parts.append("") }
        return parts
    }

    /// A `:name` or `{name}` segment matches any one segment; `**` matches the rest.
    private static func matches(_ pattern: [Substring], _ parts: [Substring]) -> Bool {
        if pattern.last == "**" { return parts.count >= pattern.count - 1 && zip(pattern.dropLast(), parts).allSatisfy(segmentMatches) }
        return pattern.count == parts.count && zip(pattern, parts).allSatisfy(segmentMatches)
    }

    private static func segmentMatches(_ pair: (Substring, Substring)) -> Bool {
        pair.0 == pair.1 || pair.0.hasPrefix(":") || pair.0.hasPrefix("{") || pair.0 == "*"
    }
}

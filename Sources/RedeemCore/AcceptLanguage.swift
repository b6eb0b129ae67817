import Foundation

/// The languages a browser or a device asks for.
public enum AcceptLanguage {
    /// `Accept-Language`'s tags, highest weight first, those of weight 0 left out (`de-CH;q=0.9` → `de-CH`).
    public static func tags(_ header: String?) -> [String] {
        let tags = (header ?? "").split(separator: ",").prefix(20).compactMap { part -> (tag: String, weight: Double)? in
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first, !tag.isEmpty, tag != "*", tag.count <= 35,
                tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
            else { return nil }
            let weight = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return (tag, weight)
        }
        // A stable sort: equal weights keep the browser's order.
        return tags.enumerated().filter { $0.element.weight > 0 }
            .sorted { ($0.element.weight, -$0.offset) > ($1.element.weight, -$1.offset) }.map(\.element.tag)
    }

    /// A BCP 47 language tag as browsers and devices write them (`de`, `pt-BR`, `zh_Hant_TW`), at most 35 characters.
    public static func isTag(_ text: String) -> Bool {
        text.count <= 35 && text.wholeMatch(of: /[A-Za-z]{2,8}([-_][A-Za-z0-9]{1,8})*/) != nil
    }

    /// What names a language's file: the language before the region (`de` of `de_AT`), and for Chinese its script,
    /// written or implied by the region (`zh_Hant_TW`, `zh-HK`: `zh-Hant`; `zh_Hans_CN`, `zh-CN`: `zh-Hans`).
    public static func language(of tag: Substring) -> String? {
        let parts = tag.trimmingCharacters(in: .whitespaces).split(whereSeparator: { $0 == "_" || $0 == "-" }).map { $0.lowercased() }
        guard let language = parts.first else { return nil }
        guard language == "zh" else { return language }
        return parts.dropFirst().contains { ["hant", "tw", "hk", "mo"].contains($0) } ? "zh-Hant" : "zh-Hans"
    }
}

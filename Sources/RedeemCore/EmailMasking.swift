/// Masks an e-mail address for display to someone who may not own it: `john@example.com` → `j***@e***.com`.
/// Runs of stars are always three, so the mask does not leak lengths.
public enum EmailMasking {
    public static func mask(_ email: String) -> String {
        guard let at = email.lastIndex(of: "@") else { return maskPart(email) }
        let local = email[..<at]
        let domain = email[email.index(after: at)...]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        let masked: String
        if labels.count >= 2 {
            masked = maskPart(labels.dropLast().joined(separator: ".")) + "." + labels[labels.count - 1]
        } else {
            masked = maskPart(String(domain))
        }
        return maskPart(String(local)) + "@" + masked
    }

    static func maskPart(_ part: String) -> String {
        guard let first = part.first else { return "***" }
        return String(first) + "***"
    }
}

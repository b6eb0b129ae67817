import Foundation

/// Header rendering: RFC 2047 encoded-words for non-ASCII text, folding at 76 columns.
enum HeaderValue {
    static let maxLineLength = 76
    /// UTF-8 bytes per encoded-word: `=?UTF-8?B?` + 52 base64 chars + `?=` = 64 columns.
    static let encodedWordBytes = 39

    /// Rejects CR, LF and NUL, the characters that could end a header early.
    static func checkNoLineBreaks(_ value: String, field: String) throws(MailError) {
        if value.unicodeScalars.contains(where: { $0 == "\r" || $0 == "\n" || $0 == "\0" }) {
            throw MailError(.invalidHeader(field: field, reason: "contains a line break"))
        }
    }

    /// Printable ASCII that a reader would not mistake for an encoded-word.
    static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { (0x20...0x7E).contains($0) } && !text.contains("=?")
    }

    /// Words of an unstructured field such as Subject.
    static func unstructuredWords(_ text: String) -> [String] {
        guard isPlain(text) else { return encodedWords(text) }
        return text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }

    /// A display name: a quoted string when plain ASCII, else encoded-words.
    static func phraseWords(_ name: String) -> [String] {
        guard isPlain(name) else { return encodedWords(name) }
        let escaped = name.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
        return ["\"\(escaped)\""]
    }

    /// `name <address>` or `<address>`; the last word gets `suffix` (a list comma).
    static func addressWords(_ address: MailAddress, suffix: String = "") -> [String] {
        (address.name.map(phraseWords) ?? []) + ["<\(address.address)>\(suffix)"]
    }

    static func addressListWords(_ list: [MailAddress]) -> [String] {
        list.enumerated().flatMap { index, address in
            addressWords(address, suffix: index < list.count - 1 ? "," : "")
        }
    }

    /// `=?UTF-8?B?...?=` words, split on Unicode scalar boundaries.
    static func encodedWords(_ text: String) -> [String] {
        var words: [String] = []
        var chunk: [UInt8] = []
        func flush() {
            guard !chunk.isEmpty else { return }
            words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
            chunk.removeAll(keepingCapacity: true)
        }
        for scalar in text.unicodeScalars {
            let bytes = Array(String(scalar).utf8)
            if chunk.count + bytes.count > encodedWordBytes { flush() }
            chunk += bytes
        }
        flush()
        return words.isEmpty ? [""] : words
    }

    /// `Name: word word`, folded before a word that would pass 76 columns; ends with CRLF.
    static func fold(_ name: String, _ words: [String]) -> String {
        var output = ""
        var line = "\(name):"
        for (index, word) in words.enumerated() {
            if index > 0, !word.isEmpty, line.utf8.count + 1 + word.utf8.count > maxLineLength {
                output += line + "\r\n"
                line = " " + word
            } else {
                line += " " + word
            }
        }
        return output + line + "\r\n"
    }
}

import Foundation

extension QRCode {
    /// A compact SVG for inlining in HTML: a white background and one `<path>` of dark runs.
    ///
    /// The `viewBox` is in modules (quiet zone included); `width`/`height` are `moduleSize` pixels
    /// per module, and CSS may override them. `label` becomes the `aria-label` ("QR code" if nil).
    public func svg(moduleSize: Int = 8, quietZone: Int = 4, label: String? = nil) -> String {
        precondition(moduleSize > 0 && quietZone >= 0, "moduleSize must be positive, quietZone not negative")
        let side = size + 2 * quietZone
        var path = ""
        for y in 0..<size {
            var x = 0
            while x < size {
                guard isDark(x: x, y: y) else {
                    x += 1
                    continue
                }
                let start = x
                while isDark(x: x, y: y) { x += 1 }
                path += "M\(start + quietZone) \(y + quietZone)h\(x - start)v1h-\(x - start)z"
            }
        }
        let pixels = side * moduleSize
        return #"<svg xmlns="http://www.w3.org/2000/svg" width="\#(pixels)" height="\#(pixels)" "#
            + #"viewBox="0 0 \#(side) \#(side)" role="img" aria-label="\#(Self.escaped(label ?? "QR code"))" "#
            + ##"shape-rendering="crispEdges"><rect width="\##(side)" height="\##(side)" fill="#fff"/>"##
            + ##"<path fill="#000" d="\##(path)"/></svg>"##
    }

    /// The code as text for a terminal: two module rows per line, drawn with `▀ ▄ █` and space.
    ///
    /// Inverted for dark-background terminals: light modules and the quiet zone are blocks in the
    /// text colour, dark modules are left blank. On a light background it shows as a negative.
    /// Lines are joined by `\n`, with no trailing newline.
    public func terminal(quietZone: Int = 2) -> String {
        precondition(quietZone >= 0, "quietZone must not be negative")
        let range = -quietZone..<(size + quietZone)
        // Past the last row (odd heights) is terminal background, so not lit.
        func lit(_ x: Int, _ y: Int) -> Bool { range.contains(y) && !isDark(x: x, y: y) }
        var lines: [String] = []
        for y in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = ""
            for x in range {
                switch (lit(x, y), lit(x, y + 1)) {
                case (true, true): line.append("█")
                case (true, false): line.append("▀")
                case (false, true): line.append("▄")
                case (false, false): line.append(" ")
                }
            }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }

    /// A raw (P4) PBM image: `scale` pixels per module, `quietZone` light modules around. Black is dark.
    public func pbm(scale: Int = 4, quietZone: Int = 4) -> Data {
        precondition(scale > 0 && quietZone >= 0, "scale must be positive, quietZone not negative")
        let side = (size + 2 * quietZone) * scale
        var data = Data("P4\n\(side) \(side)\n".utf8)
        for y in -quietZone..<(size + quietZone) {
            var row = [UInt8](repeating: 0, count: (side + 7) / 8)
            for px in 0..<side where isDark(x: px / scale - quietZone, y: y) {
                row[px / 8] |= 0x80 >> (px % 8)
            }
            for _ in 0..<scale { data.append(contentsOf: row) }
        }
        return data
    }

    private static func escaped(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(c)
            }
        }
        return out
    }
}

import Foundation
import RedeemQR
import Testing

private let samples = [
    "https://pay.example.com/r/LlEGzAFomUtP5SrJ9nOUJQ7nUE2y213jzgrApuAd-gE",
    "rdm-0123456789://redeem_web_purchase?redemption_token=abc_-XYZ",
    "Zoë’s café — 日本語のテキスト ✓ 🎟️",
    String(repeating: "Redeem 0123456789 ", count: 30),  // version ≥ 7, so it carries version blocks
]

@Suite struct QRCodeTests {
    @Test(
        .enabled(if: ZBar.path != nil, "needs zbarimg (apt-get install zbar-tools)"),
        arguments: samples, QRCode.Correction.allCases
    )
    func pbmDecodesBackExactly(_ text: String, correction: QRCode.Correction) throws {
        let qr = try QRCode(encoding: text, correction: correction)
        #expect(try ZBar.decode(qr.pbm(scale: 4, quietZone: 4)) == text)
    }

    @Test(.enabled(if: ZBar.path != nil, "needs zbarimg (apt-get install zbar-tools)"), arguments: samples)
    func terminalTextScans(_ text: String) throws {
        // As a dark-background terminal shows it: blocks light, blanks dark.
        let lit = litHalfRows(try QRCode(encoding: text).terminal(quietZone: 2))
        #expect(try ZBar.decode(plainPBM(lit.map { $0.map { !$0 } }, scale: 4)) == text)
    }

    @Test(arguments: samples)
    func terminalTextDrawsLightModulesAsBlocks(_ text: String) throws {
        let qr = try QRCode(encoding: text)
        let side = qr.size + 2 * 2
        let terminal = qr.terminal(quietZone: 2)
        let lines = terminal.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == (side + 1) / 2 && lines.allSatisfy { $0.count == side })
        #expect(terminal.allSatisfy { "█▀▄ \n".contains($0) })
        let lit = litHalfRows(terminal)
        #expect(Array(lit.prefix(side)) == modules(qr, quietZone: 2).map { $0.map { !$0 } })
        #expect(lit.count == side + 1 && !lit[side].contains(true))  // the spare half row is background
    }

    @Test(arguments: samples)
    func svgPathHoldsExactlyTheDarkModules(_ text: String) throws {
        let qr = try QRCode(encoding: text)
        let svg = qr.svg(moduleSize: 8, quietZone: 4, label: nil)
        let side = qr.size + 8
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg" width="\#(side * 8)" height="\#(side * 8)" "#))
        for part in [
            #"viewBox="0 0 \#(side) \#(side)""#, #"role="img""#, #"aria-label="QR code""#,
            #"shape-rendering="crispEdges""#, ##"<rect width="\##(side)" height="\##(side)" fill="#fff"/>"##,
        ] {
            #expect(svg.contains(part))
        }
        #expect(svg.hasSuffix("\"/></svg>") && svg.components(separatedBy: "<path").count == 2)
        let d = try #require(svg.firstMatch(of: /<path fill="#000" d="([^"]*)"\/>/)?.output.1)
        var grid = [[Bool]](repeating: [Bool](repeating: false, count: side), count: side)
        var (consumed, painted) = (0, 0)
        for run in d.matches(of: /M(\d+) (\d+)h(\d+)v1h-(\d+)z/) {
            let (x, y, n) = (Int(run.output.1)!, Int(run.output.2)!, Int(run.output.3)!)
            #expect(n >= 1 && run.output.4 == run.output.3 && x + n <= side && y < side)
            for i in x..<min(x + n, side) { grid[y][i] = true }
            (consumed, painted) = (consumed + run.output.0.count, painted + n)
        }
        #expect(consumed == d.count, "the path holds only runs")
        #expect(painted == grid.joined().count(where: { $0 }), "runs do not overlap")
        #expect(grid == modules(qr, quietZone: 4))
        let dark = grid.joined().count(where: { $0 })
        let expected = (0..<qr.size * qr.size).count(where: { qr.isDark(x: $0 % qr.size, y: $0 / qr.size) })
        #expect(dark == expected && dark > 0 && dark < qr.size * qr.size)
    }

    @Test func svgEscapesTheLabel() throws {
        let svg = try QRCode(encoding: "x").svg(label: #"Pay "Pro" <&> it's"#)
        #expect(svg.contains(#"aria-label="Pay &quot;Pro&quot; &lt;&amp;&gt; it&#39;s""#))
    }

    @Test func pbmIsARawBitmapOfTheModules() throws {
        let qr = try QRCode(encoding: samples[0])
        let (scale, q) = (3, 2)
        let side = (qr.size + 2 * q) * scale  // 123: rows end in padding bits
        let header = Data("P4\n\(side) \(side)\n".utf8)
        let pbm = qr.pbm(scale: scale, quietZone: q)
        let rowBytes = (side + 7) / 8
        #expect(pbm.prefix(header.count) == header && pbm.count == header.count + rowBytes * side)
        let bits = Array(pbm.dropFirst(header.count))
        for y in 0..<side {
            let black = (0..<rowBytes * 8).map { x in bits[y * rowBytes + x / 8] & (0x80 >> (x % 8)) != 0 }
            let dark = (0..<rowBytes * 8).map { x in x < side && qr.isDark(x: x / scale - q, y: y / scale - q) }
            if black != dark { Issue.record("pixel row \(y)") }
        }
    }

    @Test(arguments: samples.prefix(3), QRCode.Correction.allCases)
    func matrixHasFinderTimingAndFormatPatterns(_ text: String, correction: QRCode.Correction) throws {
        let qr = try QRCode(encoding: text, correction: correction)
        let n = qr.size
        #expect((1...40).contains(qr.version) && n == 4 * qr.version + 17)
        for (cx, cy) in [(0, 0), (n - 7, 0), (0, n - 7)] {
            let finder = (-1...7).allSatisfy { dy in
                (-1...7).allSatisfy { dx in
                    let ring = max(abs(dx - 3), abs(dy - 3))  // 4 is the light separator
                    return qr.isDark(x: cx + dx, y: cy + dy) == (ring != 2 && ring != 4)
                }
            }
            #expect(finder, "finder pattern at (\(cx), \(cy))")
        }
        #expect((8..<(n - 8)).allSatisfy { qr.isDark(x: $0, y: 6) == $0.isMultiple(of: 2) }, "timing row")
        #expect((8..<(n - 8)).allSatisfy { qr.isDark(x: 6, y: $0) == $0.isMultiple(of: 2) }, "timing column")
        #expect(qr.isDark(x: 8, y: n - 8), "the dark module")
        // ISO/IEC 18004 format information, both copies: 2 EC bits + 3 mask bits + BCH(15,5), masked.
        func formatBits(_ at: (Int) -> (Int, Int)) -> Int {
            (0..<15).reduce(0) { bits, i in bits | (qr.isDark(x: at(i).0, y: at(i).1) ? 1 << i : 0) }
        }
        let first = formatBits { i in i < 6 ? (8, i) : i < 8 ? (8, i + 1) : i == 8 ? (7, 8) : (14 - i, 8) }
        let second = formatBits { i in i < 8 ? (n - 1 - i, 8) : (8, n - 15 + i) }
        #expect(first == second)
        let raw = first ^ 0x5412
        var remainder = (raw >> 10) << 10
        for bit in stride(from: 14, through: 10, by: -1) where remainder & (1 << bit) != 0 {
            remainder ^= 0x537 << (bit - 10)
        }
        #expect(remainder == raw & 0x3FF, "format BCH")
        let ecBits: [QRCode.Correction: Int] = [.low: 1, .medium: 0, .quartile: 3, .high: 2]
        #expect(raw >> 13 == ecBits[correction])
    }

    @Test func picksTheSmallestVersion() throws {
        #expect(try QRCode(encoding: "a").size == 21)
        let url = try QRCode(encoding: samples[0])  // 69 bytes: more than version 4-M holds (62)
        #expect(url.version == 5 && url.size == 37)
        #expect(try QRCode(encoding: samples[0], correction: .low).version == 4)
    }

    @Test(arguments: [(QRCode.Correction.low, 2953), (.medium, 2331), (.quartile, 1663), (.high, 1273)])
    func holdsUpToTheVersion40CapacityAndNoMore(_ correction: QRCode.Correction, bytes: Int) throws {
        #expect(try QRCode(encoding: String(repeating: "a", count: bytes), correction: correction).version == 40)
        #expect(throws: QRCodeError.textTooLong) {
            try QRCode(encoding: String(repeating: "a", count: bytes + 1), correction: correction)
        }
        // The limit is in UTF-8 bytes, not characters.
        let accented = String(repeating: "é", count: bytes / 2 + 1)
        #expect(throws: QRCodeError.textTooLong) { try QRCode(encoding: accented, correction: correction) }
    }

    @Test func rejectsEmptyTextAndDescribesErrors() {
        #expect(throws: QRCodeError.emptyText) { try QRCode(encoding: "") }
        #expect(QRCodeError.textTooLong != .encodingFailed)
        #expect("\(QRCodeError.textTooLong)".contains("too long"))
    }

    @Test func isAValueOfItsModules() throws {
        let qr = try QRCode(encoding: samples[1])
        #expect(try QRCode(encoding: samples[1]) == qr)
        #expect(try QRCode(encoding: samples[1], correction: .high) != qr)
        #expect(!qr.isDark(x: -1, y: 0) && !qr.isDark(x: 0, y: qr.size) && qr.isDark(x: 0, y: 0))
    }
}

/// Decodes images with zbarimg (Debian: zbar-tools), which reads PBM through ImageMagick.
private enum ZBar {
    static let path: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin")
        .split(separator: ":").map { "\($0)/zbarimg" }
        .first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The one symbol's text; throws if zbarimg finds none.
    static func decode(_ image: Data) throws -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("redeem-qr-\(UUID().uuidString).pbm")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(path))
        process.arguments = ["--raw", "-q", "--nodbus", file.path]  // --raw: the bytes as encoded
        let (output, errors) = (Pipe(), Pipe())
        (process.standardOutput, process.standardError) = (output, errors)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "zbarimg exited \(process.terminationStatus): \(message)")
        let text = String(decoding: data, as: UTF8.self)
        return text.hasSuffix("\n") ? String(text.dropLast()) : text
    }
}

/// The matrix with a light border, row-major; `true` is dark.
private func modules(_ qr: QRCode, quietZone q: Int) -> [[Bool]] {
    (-q..<(qr.size + q)).map { y in (-q..<(qr.size + q)).map { x in qr.isDark(x: x, y: y) } }
}

/// Terminal text back to half rows; `true` is a lit (block) half cell.
private func litHalfRows(_ terminal: String) -> [[Bool]] {
    terminal.split(separator: "\n").flatMap { line in
        [line.map { $0 == "█" || $0 == "▀" }, line.map { $0 == "█" || $0 == "▄" }]
    }
}

/// A plain (P1) PBM of `dark`, `scale` pixels per cell.
private func plainPBM(_ dark: [[Bool]], scale: Int) -> Data {
    var out = "P1\n\(dark[0].count * scale) \(dark.count * scale)\n"
    for row in dark {
        let line = row.map { $0 ? "1" : "0" }.flatMap { Array(repeating: $0, count: scale) }.joined(separator: " ")
        for _ in 0..<scale { out += line + "\n" }
    }
    return Data(out.utf8)
}

import CQREncode
import Foundation

/// A QR code (model 2), encoded by libqrencode: a square matrix of dark and light modules.
///
/// The text is encoded as UTF-8 in byte mode, at the smallest version that fits.
/// Render it with `svg(moduleSize:quietZone:label:)`, `terminal(quietZone:)` or `pbm(scale:quietZone:)`.
public struct QRCode: Sendable, Hashable {
    /// Error correction level: the share of the symbol that may be damaged and still decode.
    public enum Correction: Sendable, Hashable, CaseIterable {
        /// About 7%.
        case low
        /// About 15%.
        case medium
        /// About 25%.
        case quartile
        /// About 30%.
        case high
    }

    /// The most UTF-8 bytes any QR code holds (version 40, low correction).
    static let maxBytes = 2953

    /// Modules per side, without the quiet zone: `4 * version + 17`.
    public let size: Int
    /// The QR version, 1...40.
    public let version: Int
    /// Row-major, `size * size`; `true` is dark.
    private let modules: [Bool]

    public init(encoding text: String, correction: Correction = .medium) throws(QRCodeError) {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw .emptyText }
        guard bytes.count <= Self.maxBytes else { throw .textTooLong }
        let (code, error) = bytes.withUnsafeBufferPointer { buffer in
            let code = QRcode_encodeData(Int32(buffer.count), buffer.baseAddress, 0, correction.level)
            return (code, errno)
        }
        guard let code else { throw error == ERANGE ? .textTooLong : .encodingFailed }
        defer { QRcode_free(code) }
        size = Int(code.pointee.width)
        version = Int(code.pointee.version)
        // Bit 0 of each byte is the module's colour; the other bits are libqrencode bookkeeping.
        modules = UnsafeBufferPointer(start: code.pointee.data, count: size * size).map { $0 & 1 != 0 }
    }

    /// Whether the module in column `x`, row `y` is dark. Outside the matrix is light (the quiet zone).
    public func isDark(x: Int, y: Int) -> Bool {
        guard (0..<size).contains(x), (0..<size).contains(y) else { return false }
        return modules[y * size + x]
    }
}

extension QRCode.Correction {
    var level: QRecLevel {
        switch self {
        case .low: QR_ECLEVEL_L
        case .medium: QR_ECLEVEL_M
        case .quartile: QR_ECLEVEL_Q
        case .high: QR_ECLEVEL_H
        }
    }
}

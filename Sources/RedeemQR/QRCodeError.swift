/// Why a QR code could not be made.
///
/// A struct wrapping a private enum, so new kinds can be added without breaking callers.
/// Compare with the static members: `error == .textTooLong`.
public struct QRCodeError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Sendable, Hashable {
        case emptyText
        case textTooLong
        case encodingFailed
    }

    private let kind: Kind

    private init(_ kind: Kind) { self.kind = kind }

    /// There was nothing to encode.
    public static let emptyText = QRCodeError(.emptyText)
    /// The text's UTF-8 does not fit in a version 40 code at the requested correction level.
    public static let textTooLong = QRCodeError(.textTooLong)
    /// libqrencode failed for another reason (e.g. out of memory).
    public static let encodingFailed = QRCodeError(.encodingFailed)

    public var description: String {
        switch kind {
        case .emptyText: "QRCodeError: the text is empty"
        case .textTooLong: "QRCodeError: the text is too long for a QR code"
        case .encodingFailed: "QRCodeError: libqrencode failed to encode the text"
        }
    }
}

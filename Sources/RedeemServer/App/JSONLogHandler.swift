import Foundation
import Logging

/// One JSON object per line on standard error: `{"ts", "level", "label", "msg", …metadata}`.
/// Chosen with `REDEEM_LOG_FORMAT=json`; the default is swift-log's text lines.
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    let label: String

    public init(label: String) { self.label = label }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var object: [String: Any] = [
            "ts": ISO8601DateFormatter().string(from: Date()), "level": event.level.rawValue, "label": label,
            "msg": "\(event.message)", "source": event.source,
        ]
        for (key, value) in metadata.merging(event.metadata ?? [:], uniquingKeysWith: { $1 }) { object[key] = "\(value)" }
        guard var data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        data.append(0x0a)
        FileHandle.standardError.write(data)
    }
}

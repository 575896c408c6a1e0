// DWLogFormat and DWLogHandler: serve's log lines as imgproxy writes them (pretty, structured = logfmt, json).
import DWFileIO
import DWLocking
import DWWebImage
import Foundation
import Logging

/// How `serve` writes log lines (`--log-format`, imgproxy's `IMGPROXY_LOG_FORMAT`).
public enum DWLogFormat: String, Sendable, CaseIterable {
    /// swift-log's text lines on stderr, the access line as `GET /path 200 123 4.5ms note`.
    case pretty
    /// logfmt on stdout: `time=… level=info msg="…" key=value …`.
    case structured
    /// One JSON object a line on stdout: `{"time":…,"level":"info","msg":…, …}`.
    case json
}

/// A `LogHandler` writing `structured` or `json` lines to stdout, one `write` a line (whole lines never interleave),
/// from whichever thread logs. Metadata: the handler's own, then the provider's (the request ID), then the call's.
public struct DWLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    let label: String
    let format: DWLogFormat

    /// A handler for `label` writing `format` (`.pretty` is swift-log's stream handler instead: see
    /// ``DWLogFormat/makeHandler(label:metadataProvider:)``).
    public init(label: String, format: DWLogFormat, metadataProvider: Logger.MetadataProvider? = nil) {
        self.label = label
        self.format = format
        self.metadataProvider = metadataProvider
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let provided = metadataProvider?.get() { fields.merge(provided) { $1 } }
        if let own = event.metadata { fields.merge(own) { $1 } }
        let line = Self.line(format: format, level: event.level, message: "\(event.message)", fields: fields)
        // A closed stdout (its reader gone) drops the line: the server keeps answering.
        Self.output.withLock { _ in _ = StandardStream.output.write(line + "\n") }
    }

    /// Serialises writes from every handler of the process.
    private static let output = DWLock(())

    /// One line in `format` (time in RFC 3339 UTC with milliseconds, then level, message, fields sorted by name).
    static func line(format: DWLogFormat, level: Logger.Level, message: String, fields: Logger.Metadata) -> String {
        let time = Date().formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        var pairs: [(String, String)] = [("time", time), ("level", level.rawValue), ("msg", message)]
        pairs += fields.sorted { $0.key < $1.key }.map { ($0.key, "\($0.value)") }
        let numbers = Set(
            fields.compactMap { key, value -> String? in
                if case .stringConvertible(let number) = value, number is any BinaryInteger { return key }
                return nil
            })
        switch format {
        case .json:
            return "{"
                + pairs.map { key, value in
                    "\(jsonString(key)):" + (numbers.contains(key) ? value : jsonString(value))
                }.joined(separator: ",") + "}"
        case .structured, .pretty:
            return pairs.map { "\($0.0)=\(logfmtValue($0.1))" }.joined(separator: " ")
        }
    }

    static func jsonString(_ text: String) -> String { JSONText.quoted(text) }

    static func logfmtValue(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 0x20 && $0 != "\"" && $0 != "=" }
        return plain ? text : jsonString(text)
    }
}

extension DWLogFormat {
    /// The handler for `label`: swift-log's stderr stream for `.pretty` (its metadata formatted only for a line it
    /// writes: ``DWDeferredMetadataLogHandler``), a ``DWLogHandler`` on stdout otherwise.
    public func makeHandler(label: String, metadataProvider: Logger.MetadataProvider?) -> any LogHandler {
        switch self {
        case .pretty:
            DWDeferredMetadataLogHandler(
                StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider))
        case .structured, .json: DWLogHandler(label: label, format: self, metadataProvider: metadataProvider)
        }
    }
}

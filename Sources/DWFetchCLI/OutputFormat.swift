// OutputFormat: dwfetch's per-URL lines — human-readable, or one JSON object with the fields of docs/dwfetch.md
// ("Output") in that order.
import DWWebImage
import Foundation

enum OutputFormat {
    /// `ok    network  png    640x480     12.3 KB  URL -> path` / `FAIL  10004  HTTP 404 Not Found  URL`
    static func human(_ outcome: FetchOutcome) -> String {
        switch outcome.result {
        case .success(let image):
            let dims =
                "\(image.pixelWidth)x\(image.pixelHeight)" + (image.frameCount > 1 ? " \(image.frameCount)f" : "")
            var line =
                "ok    " + pad(image.source.rawValue, 8) + pad(image.format.rawValue, 6) + pad(dims, 14)
                + pad(size(Int64(image.byteCount)), 11) + outcome.url
            if let path = outcome.path { line += " -> \(path)" }
            if let problem = outcome.writeError { line = "FAIL  " + problem + "  " + outcome.url }
            return outcome.prefetched ? line + "  (prefetch)" : line
        case .failure(let error):
            return "FAIL  \(error.code.rawValue)  \(error.message)  \(outcome.url)"
                + (outcome.prefetched ? "  (prefetch)" : "")
        }
    }

    /// One line of JSON: the documented fields (docs/dwfetch.md, "Output"), in that order.
    static func json(_ outcome: FetchOutcome) -> String {
        var w = JSONLine()
        w.add("url", .string(outcome.url))
        switch outcome.result {
        case .success(let image) where outcome.writeError == nil:
            w.add("ok", .bool(true))
            w.add("source", .string(image.source.rawValue))
            w.add("bytes", .int(Int64(image.byteCount)))
            w.add("format", .string(image.format.rawValue))
            w.add("width", .int(Int64(image.pixelWidth)))
            w.add("height", .int(Int64(image.pixelHeight)))
            w.add("frames", .int(Int64(image.frameCount)))
            w.add("loop_count", .int(Int64(image.loopCount)))
            w.add("duration_ms", .int(Int64((image.duration * 1000).rounded())))
            if let original = image.original {
                w.add("source_format", .string(original.format.rawValue))
                w.add("source_width", .int(Int64(original.width)))
                w.add("source_height", .int(Int64(original.height)))
                w.add("variant", .string(original.variant))
            }
            w.add("sha256", image.sha256.map { .string($0) } ?? .null)
            w.add("path", outcome.path.map { .string($0) } ?? .null)
            w.add("resumed_from", .int(image.metrics?.resumedFrom ?? 0))
            w.add("attempts", .int(Int64(image.metrics?.attempts ?? 0)))
            let metrics = image.metrics ?? outcome.metrics
            w.add("queued_ms", .int(Int64(((metrics?.queued ?? 0) * 1000).rounded())))
            w.add("elapsed_ms", .int(Int64(((metrics?.elapsed ?? 0) * 1000).rounded())))
            if outcome.prefetched { w.add("prefetch", .bool(true)) }
        case .success:
            w.add("ok", .bool(false))
            w.add(
                "error",
                .object([
                    ("code", .int(Int64(DWWebImageError.Code.cacheIO.rawValue))),
                    ("message", .string(outcome.writeError ?? ""))
                ]))
        case .failure(let error):
            w.add("ok", .bool(false))
            var fields: [(String, JSONValue)] = [
                ("code", .int(Int64(error.code.rawValue))), ("message", .string(error.message))
            ]
            if let status = error.httpStatus { fields.append(("http_status", .int(Int64(status)))) }
            if let curl = error.curlCode { fields.append(("curl_code", .int(Int64(curl)))) }
            w.add("error", .object(fields))
            if let metrics = outcome.metrics {
                w.add("attempts", .int(Int64(metrics.attempts)))
                w.add("queued_ms", .int(Int64((metrics.queued * 1000).rounded())))
                w.add("elapsed_ms", .int(Int64((metrics.elapsed * 1000).rounded())))
            }
            if outcome.prefetched { w.add("prefetch", .bool(true)) }
        }
        return w.text
    }

    static func size(_ bytes: Int64) -> String {
        let b = Double(bytes)
        if b < 1024 { return "\(bytes) B" }
        // One decimal without String(format:), which costs microseconds per call through Foundation.
        func tenths(_ value: Double, _ unit: String) -> String {
            let scaled = Int((value * 10).rounded())
            return "\(scaled / 10).\(scaled % 10) \(unit)"
        }
        if b < 1024 * 1024 { return tenths(b / 1024, "KB") }
        if b < 1024 * 1024 * 1024 { return tenths(b / 1024 / 1024, "MB") }
        return tenths(b / 1024 / 1024 / 1024, "GB")
    }

    private static func pad(_ s: String, _ width: Int) -> String {
        // utf8.count, not count: the fields are ASCII, and counting Characters costs more than the padding.
        let n = s.utf8.count
        return n >= width ? s + " " : s + String(repeating: " ", count: width - n)
    }
}

/// A JSON value with ordered object keys.
indirect enum JSONValue {
    case string(String), int(Int64), bool(Bool), null, object([(String, JSONValue)])

    var text: String {
        switch self {
        case .string(let s): return JSONValue.quote(s)
        case .int(let n): return String(n)
        case .bool(let b): return b ? "true" : "false"
        case .null: return "null"
        case .object(let fields):
            return "{" + fields.map { "\(JSONValue.quote($0.0)): \($0.1.text)" }.joined(separator: ", ") + "}"
        }
    }

    static func quote(_ s: String) -> String { JSONText.quoted(s) }
}

/// Builds one JSON object line.
struct JSONLine {
    private var fields: [(String, JSONValue)] = []
    mutating func add(_ key: String, _ value: JSONValue) { fields.append((key, value)) }
    var text: String { JSONValue.object(fields).text }
}

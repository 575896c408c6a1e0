// ResponseHead: the parts of the final HTTP response the pipeline needs (status and caching/resume validators).

/// Status and selected headers of the final response of a transfer (after redirects).
public struct DWResponseHead: Sendable, Equatable {
    /// HTTP status of the final response.
    public var status: Int = 0
    /// `ETag`, verbatim (may be weak, `W/"…"`).
    public var etag: String?
    /// `Last-Modified`, verbatim.
    public var lastModified: String?
    /// `Content-Type`, verbatim.
    public var contentType: String?
    /// `Content-Length`, when present and valid.
    public var contentLength: Int64?
    /// `Accept-Ranges`, verbatim.
    public var acceptRanges: String?
    /// `Content-Range`, verbatim.
    public var contentRange: String?
    /// `Content-Encoding`, verbatim.
    public var contentEncoding: String?
    /// Whether the body is sent with a content coding other than identity (gzip, br…); libcurl hands it on decoded.
    public var isContentCoded: Bool {
        guard let contentEncoding else { return false }
        return contentEncoding.split(separator: ",").contains {
            let coding = $0.trimmingCharacters(in: .whitespaces).lowercased()
            return !coding.isEmpty && coding != "identity"
        }
    }
    /// `Retry-After`, verbatim.
    public var retryAfter: String?
    /// `Cache-Control`, verbatim (several header lines joined with ", ").
    public var cacheControl: String?
    /// `Location` of a redirect response.
    var location: String?

    /// Records one header line (`Name: value`); names compare case-insensitively.
    mutating func add(headerLine line: Substring) {
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmedWhitespace()
        switch name {
        case "etag": etag = value
        case "last-modified": lastModified = value
        case "content-type": contentType = value
        case "content-length":
            // RFC 9110 §8.6: digits only; anything else is ignored (curl rejects it anyway).
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let n = Int64(value) { contentLength = n }
        case "accept-ranges": acceptRanges = value
        case "content-range": contentRange = value
        case "content-encoding": contentEncoding = value
        case "retry-after": retryAfter = value
        case "cache-control": cacheControl = cacheControl.map { $0 + ", " + value } ?? value
        case "location": location = value
        default: break
        }
    }

    /// Parses `HTTP/1.1 200 OK` / `HTTP/2 200`; nil when the line is not a status line.
    static func status(fromStatusLine line: Substring) -> Int? {
        guard line.hasPrefix("HTTP/") else { return nil }
        let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[1].count == 3, let code = Int(parts[1]) else { return nil }
        return code
    }
}

extension Substring {
    /// The text without leading and trailing spaces, tabs, CR and LF.
    func trimmedWhitespace() -> String {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
        let bytes = utf8
        guard let start = bytes.firstIndex(where: { !isSpace($0) }),
              let end = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }
}

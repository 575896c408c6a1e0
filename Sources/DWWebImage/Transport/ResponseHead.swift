// ResponseHead: the parts of the final HTTP response the pipeline needs (status and caching/resume validators).

/// Status and selected headers of the final response of a transfer (after redirects).
///
/// A value whose fields share one box until one of the values is written (copy-on-write, as Array): the pipeline
/// hands a head along several times a download, and a copy of ten optional Strings is twenty retains and releases.
struct DWResponseHead: Sendable, Equatable {
    /// The fields, compared and copied as a whole.
    private struct Fields: Equatable {
        var status = 0
        var etag: String?
        var lastModified: String?
        var contentType: String?
        var contentLength: Int64?
        var acceptRanges: String?
        var contentRange: String?
        var contentEncoding: String?
        var retryAfter: String?
        var cacheControl: String?
        var expires: String?
        var location: String?
    }

    /// Holds the fields; written only while uniquely referenced.
    private final class Box: @unchecked Sendable {
        // @unchecked: `fields` is written only through DWResponseHead's setters after isKnownUniquelyReferenced,
        // i.e. while no other value (and so no other thread) can reach this box.
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box = Box(Fields())

    /// An empty head (status 0, no headers).
    init() {}

    /// The fields to write, copied first when another value shares them.
    private var unique: Box {
        mutating get {
            if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
            return box
        }
    }

    /// HTTP status of the final response.
    var status: Int {
        get { box.fields.status }
        set { unique.fields.status = newValue }
    }
    /// `ETag`, verbatim (may be weak, `W/"…"`).
    var etag: String? {
        get { box.fields.etag }
        set { unique.fields.etag = newValue }
    }
    /// `Last-Modified`, verbatim.
    var lastModified: String? {
        get { box.fields.lastModified }
        set { unique.fields.lastModified = newValue }
    }
    /// `Content-Type`, verbatim.
    var contentType: String? {
        get { box.fields.contentType }
        set { unique.fields.contentType = newValue }
    }
    /// `Content-Length`, when present and valid.
    var contentLength: Int64? {
        get { box.fields.contentLength }
        set { unique.fields.contentLength = newValue }
    }
    /// `Accept-Ranges`, verbatim.
    var acceptRanges: String? {
        get { box.fields.acceptRanges }
        set { unique.fields.acceptRanges = newValue }
    }
    /// `Content-Range`, verbatim.
    var contentRange: String? {
        get { box.fields.contentRange }
        set { unique.fields.contentRange = newValue }
    }
    /// `Content-Encoding`, verbatim.
    var contentEncoding: String? {
        get { box.fields.contentEncoding }
        set { unique.fields.contentEncoding = newValue }
    }
    /// Whether the body is sent with a content coding other than identity (gzip, br…); libcurl hands it on decoded.
    var isContentCoded: Bool {
        guard let contentEncoding else { return false }
        return contentEncoding.split(separator: ",").contains {
            let coding = $0.trimmingCharacters(in: .whitespaces).lowercased()
            return !coding.isEmpty && coding != "identity"
        }
    }
    /// `Retry-After`, verbatim.
    var retryAfter: String? {
        get { box.fields.retryAfter }
        set { unique.fields.retryAfter = newValue }
    }
    /// `Cache-Control`, verbatim (several header lines joined with ", ").
    var cacheControl: String? {
        get { box.fields.cacheControl }
        set { unique.fields.cacheControl = newValue }
    }
    /// `Expires`, verbatim.
    var expires: String? {
        get { box.fields.expires }
        set { unique.fields.expires = newValue }
    }
    /// `Location` of a redirect response.
    var location: String? {
        get { box.fields.location }
        set { unique.fields.location = newValue }
    }

    /// Equal when every field is.
    static func == (a: DWResponseHead, b: DWResponseHead) -> Bool {
        a.box === b.box || a.box.fields == b.box.fields
    }

    /// Records one header line (`Name: value`); names compare case-insensitively.
    mutating func add(headerLine line: Substring) {
        var bytes = Array(line.utf8)
        bytes.withUnsafeMutableBytes { add(headerLine: UnsafeRawBufferPointer($0)) }
    }

    /// Records one header line as libcurl hands it over (bytes, CRLF included). Works on bytes: only the values
    /// kept become Strings (Character-level Substring operations cost more than the rest of a small transfer).
    mutating func add(headerLine line: UnsafeRawBufferPointer) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = UnsafeRawBufferPointer(rebasing: line[..<colon])
        var start = colon + 1, end = line.count
        while start < end, line[start].isASCIISpace { start += 1 }
        while end > start, line[end - 1].isASCIISpace { end -= 1 }
        let raw = UnsafeRawBufferPointer(rebasing: line[start..<end])
        var value: String { String(decoding: raw, as: UTF8.self) }
        switch name.count {
        case 4 where Self.named(name, "etag"): etag = value
        case 13 where Self.named(name, "last-modified"): lastModified = value
        case 12 where Self.named(name, "content-type"): contentType = value
        case 14 where Self.named(name, "content-length"):
            // RFC 9110 §8.6: digits only; anything else is ignored (curl rejects it anyway).
            guard !raw.isEmpty, raw.count <= 18, raw.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { break }
            contentLength = raw.reduce(Int64(0)) { $0 * 10 + Int64($1 - 48) }
        case 13 where Self.named(name, "accept-ranges"): acceptRanges = value
        case 13 where Self.named(name, "content-range"): contentRange = value
        case 16 where Self.named(name, "content-encoding"): contentEncoding = value
        case 11 where Self.named(name, "retry-after"): retryAfter = value
        case 13 where Self.named(name, "cache-control"): cacheControl = cacheControl.map { $0 + ", " + value } ?? value
        case 8 where Self.named(name, "location"): location = value
        case 7 where Self.named(name, "expires"): expires = value
        default: break
        }
    }

    /// ASCII case-insensitive comparison with a lowercase name.
    private static func named(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for i in 0..<bytes.count where bytes[i] | 0x20 != expected[i] && bytes[i] != expected[i] { return false }
        return true
    }

    /// Parses `HTTP/1.1 200 OK` / `HTTP/2 200`; nil when the line is not a status line.
    static func status(fromStatusLine line: Substring) -> Int? {
        Array(line.utf8).withUnsafeBytes { status(fromStatusLine: $0) }
    }

    /// Parses a status line from libcurl's bytes; nil when the line is not one.
    static func status(fromStatusLine line: UnsafeRawBufferPointer) -> Int? {
        guard line.count >= 5, line[0] == 0x48, line[1] == 0x54, line[2] == 0x54, line[3] == 0x50, line[4] == 0x2F
        else { return nil }  // "HTTP/"
        guard var i = line.firstIndex(of: 0x20) else { return nil }
        while i < line.count, line[i] == 0x20 { i += 1 }
        guard i + 3 <= line.count else { return nil }
        var code = 0
        for j in i..<i + 3 {
            guard line[j] >= 48 && line[j] <= 57 else { return nil }
            code = code * 10 + Int(line[j] - 48)
        }
        guard i + 3 == line.count || line[i + 3].isASCIISpace else { return nil }
        return code
    }
}

extension Substring {
    /// The text without leading and trailing spaces, tabs, CR and LF.
    func trimmedWhitespace() -> String {
        let bytes = utf8
        guard let start = bytes.firstIndex(where: { !$0.isASCIISpace }),
            let end = bytes.lastIndex(where: { !$0.isASCIISpace })
        else { return "" }
        return String(self[start...end])
    }
}

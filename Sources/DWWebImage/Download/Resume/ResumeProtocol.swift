// ResumeProtocol: the rules for resuming a partial body with Range/If-Range, as pure functions.
//
// libcurl 7.88.1 does none of this for us: it never sends If-Range, accepts a 200 that carries a matching
// Content-Range, treats every 416 as "already complete" and accepts a same-size 200 as done. So we never use
// CURLOPT_RESUME_FROM; we send the headers ourselves and decide here, in the header callback, before a single
// body byte is written.
import Foundation

/// What a partial body needs to be resumed safely.
struct ResumeValidator: Sendable, Equatable, Codable {
    /// A strong ETag (weak `W/` tags are never used for If-Range, RFC 9110 §13.1.5).
    var etag: String?
    /// Last-Modified, used only when there is no strong ETag.
    var lastModified: String?

    /// The validator taken from a response head; nil when it offers nothing usable for If-Range.
    init?(head: DWResponseHead) {
        let strong = head.etag.flatMap { ResumeProtocol.isStrongETag($0) ? $0 : nil }
        guard strong != nil || head.lastModified != nil else { return nil }
        etag = strong
        lastModified = strong == nil ? head.lastModified : nil
    }

    init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The value for `If-Range`.
    var ifRange: String { etag ?? lastModified ?? "" }

    /// Whether `head` names a different representation than this validator (it carries a validator of the same
    /// kind with another value).
    func contradicts(_ head: DWResponseHead) -> Bool {
        if let etag, let other = head.etag { return other != etag }
        if let lastModified, let other = head.lastModified { return other != lastModified }
        return false
    }

    /// Whether `head` describes the same representation.
    func matches(_ head: DWResponseHead) -> Bool {
        if let etag { return head.etag == etag }
        if let lastModified { return head.lastModified == lastModified }
        return false
    }
}

/// Resume decisions.
enum ResumeProtocol {
    /// The request headers for resuming from `offset` (nil when the partial cannot be resumed). The request also
    /// asks for `Accept-Encoding: identity` (``TransferRequest/acceptEncoding``): a coded range cannot be appended.
    static func requestHeaders(offset: Int64, validator: ResumeValidator?) -> [String]? {
        guard offset > 0, let validator, !validator.ifRange.isEmpty else { return nil }
        return ["Range: bytes=\(offset)-", "If-Range: \(validator.ifRange)"]
    }

    /// What to do with a response to a (possibly ranged) request, decided from its final head. `requestedOffset` is the
    /// Range start sent (0 = no Range) and `validator` the one sent in If-Range: a 206 that names a different
    /// representation (a server that ignores If-Range) is never spliced onto the bytes held.
    static func decide(head: DWResponseHead, requestedOffset: Int64, validator: ResumeValidator? = nil) -> HeadOutcome {
        switch head.status {
        case 206:
            guard let range = parseContentRange(head.contentRange), let start = range.start else {
                return .refetchWhole(reason: "206 without a usable Content-Range")
            }
            if let encoding = head.contentEncoding, !isIdentity(encoding) {
                return .refetchWhole(reason: "206 with Content-Encoding \(encoding)")
            }
            guard start == requestedOffset else {
                return .refetchWhole(reason: "206 starts at \(start), asked for \(requestedOffset)")
            }
            if start > 0, let validator, validator.contradicts(head) {
                return .refetchWhole(reason: "206 for a different representation (validator changed)")
            }
            if let length = head.contentLength, let end = range.end, end - start + 1 != length {
                return .refetchWhole(reason: "206 Content-Length \(length) disagrees with its Content-Range")
            }
            return start == 0 ? .replace : .append(offset: start)
        case 200..<300:
            return .replace  // a 200 (server ignored Range, or the resource changed): the whole body
        default:
            return .noBody
        }
    }

    /// After a 416 to a request for `bytes=N-` with `N == partialLength`: whether what we hold is the complete,
    /// current resource (`Content-Range: bytes */N` and the validator still matches).
    static func unsatisfiedRangeMeansComplete(
        head: DWResponseHead, partialLength: Int64,
        validator: ResumeValidator?
    ) -> Bool {
        guard head.status == 416, partialLength > 0, let validator,
            let range = parseContentRange(head.contentRange), range.start == nil,
            range.total == partialLength
        else { return false }
        return validator.matches(head)
    }

    /// The total size a finished body must have: Content-Range's total for a 206, Content-Length for others; none
    /// for a coded body (its lengths count coded bytes; libcurl checks those, the body holds decoded ones).
    static func expectedTotal(head: DWResponseHead, offset: Int64) -> Int64? {
        if head.isContentCoded { return nil }
        if head.status == 206 { return parseContentRange(head.contentRange)?.total }
        return head.contentLength.map { offset + $0 }
    }

    /// `bytes a-b/total`, `bytes a-b/*` or `bytes */total` (RFC 9110 §14.4).
    static func parseContentRange(_ value: String?) -> (start: Int64?, end: Int64?, total: Int64?)? {
        guard let value, value.hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { return nil }
        let total: Int64?
        if halves[1] == "*" {
            total = nil
        } else {
            guard let t = digits(halves[1]) else { return nil }
            total = t
        }
        if halves[0] == "*" {
            guard total != nil else { return nil }
            return (nil, nil, total)
        }
        let bounds = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let start = digits(bounds[0]), let end = digits(bounds[1]), end >= start else {
            return nil
        }
        if let total, end >= total { return nil }
        return (start, end, total)
    }

    static func isStrongETag(_ etag: String) -> Bool {
        // `"…"` on bytes (a weak tag starts with `W/`, so not with a quote); String's Unicode-aware hasPrefix,
        // hasSuffix and count cost ~800 instructions a response, and an entity tag is ASCII (RFC 9110 §8.8.3).
        let bytes = etag.utf8
        return bytes.count >= 2 && bytes.first == 0x22 && bytes.last == 0x22
    }

    private static func isIdentity(_ encoding: String) -> Bool {
        encoding.split(separator: ",").allSatisfy { $0.trimmingCharacters(in: .whitespaces).lowercased() == "identity" }
    }

    private static func digits(_ s: Substring) -> Int64? {
        guard !s.isEmpty, s.count <= 18, s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(s)
    }
}

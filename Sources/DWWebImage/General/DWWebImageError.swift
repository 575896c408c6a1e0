// DWWebImageError: the one error type of the pipeline, numbered as the DW original (domain "DWWebImageErrorDomain").
import Foundation

/// The error every DWWebImage API reports. Its ``code`` is stable (10000–10008) and its fields carry what a user
/// needs to act: the HTTP status, curl's code and text, or the sizes involved.
///
/// Bridged to `NSError` with domain ``DWWebImageError/domain`` and `code` = ``Code/rawValue``.
public struct DWWebImageError: Error, Sendable, Equatable, CustomStringConvertible, CustomNSError {
    /// The error domain, as in the DW original's `NSError`s.
    public static let domain = "DWWebImageErrorDomain"

    /// What went wrong, as a stable number.
    public enum Code: Int, Sendable, CaseIterable {
        /// Data was downloaded but it is not a decodable image.
        case notAnImage = 10000
        /// The URL string is empty.
        case emptyURL = 10001
        /// The URL is malformed or not http/https: no request could be made.
        case invalidURL = 10002
        /// Transport failure (refused, reset, timeout, TLS…) after retries; see ``curlCode``.
        case transport = 10003
        /// The final HTTP status was not 2xx; see ``httpStatus``.
        case httpStatus = 10004
        /// The body is over the size limit, or the image's pixel count is over the decode limit.
        case tooLarge = 10005
        /// Only-from-cache was requested and the cache has no entry.
        case notInCache = 10006
        /// The request was cancelled.
        case cancelled = 10007
        /// Writing or reading the cache failed (disk full, permission); the download's image is still delivered.
        case cacheIO = 10008
    }

    /// The stable code.
    public let code: Code
    /// A human-readable explanation.
    public let message: String
    /// The URL the request was for, when there was one.
    public internal(set) var url: String?
    /// The final HTTP status (for ``Code/httpStatus``; also set on other errors when a response was seen).
    public let httpStatus: Int?
    /// libcurl's `CURLcode` (for ``Code/transport``).
    public let curlCode: Int?
    /// The size that was refused (for ``Code/tooLarge``): bytes, or pixels for decode limits.
    public let size: Int64?
    /// The limit that was exceeded (for ``Code/tooLarge``).
    public let limit: Int64?
    /// The address the manager's ``DWWebImageManager/Configuration/connectionPolicy`` refused (a 10003 whose
    /// connection was never opened), e.g. `"127.0.0.1"`; nil otherwise.
    public internal(set) var refusedAddress: String?
    /// This failure was answered from the manager's negative cache (``DWWebImageManager/Configuration/failedURLTTL``)
    /// without a request: the download it repeats failed earlier.
    public internal(set) var isRemembered = false
    /// The redirect target a redirect handler refused (a 10004 carrying the redirect's status); nil otherwise.
    /// See ``DWRedirectHandler``.
    public internal(set) var refusedRedirect: String?
    /// Whether the work was refused because the transform executor took no more (every worker busy, its queue
    /// full): a 10007 a server answers 503. See ``busy(_:)``.
    public internal(set) var isBusy = false
    /// The output format an encode budget put off (a 10005 a server answers in another format at once while it
    /// makes this one in the background); nil for every other error. Set by the processing engine's encode gate.
    package var deferredFormat: DWImageFormat?

    /// Whether this is a transport failure because time ran out (curl's CURLE_OPERATION_TIMEDOUT: the total
    /// timeout, the connect timeout or the stall timeout).
    public var isTimeout: Bool { code == .transport && curlCode == CurlCode.timedOut }
    /// Whether the connection policy refused the address the URL resolved to (see ``refusedAddress``).
    public var isRefusedAddress: Bool { refusedAddress != nil }
    /// Whether another attempt could succeed: transport failures, HTTP 5xx, 408 and 429 (what the downloader keeps
    /// a partial body for).
    public var isTransient: Bool {
        code == .transport || (httpStatus.map { $0 >= 500 || $0 == 408 || $0 == 429 } ?? false)
    }

    /// Creates an error with `code` and a one-line `message` (how a custom loader, processor or codec reports a
    /// failure: 10000 for bytes that are not an image, 10003 for a transport failure, …). Any thread.
    public init(
        _ code: Code, _ message: String, url: String? = nil, httpStatus: Int? = nil, curlCode: Int? = nil,
        size: Int64? = nil, limit: Int64? = nil
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.httpStatus = httpStatus
        self.curlCode = curlCode
        self.size = size
        self.limit = limit
    }

    /// `"[10004] HTTP 404 Not Found (http://…)"`.
    public var description: String {
        var text = "[\(code.rawValue)] \(message)"
        if let url { text += " (\(url))" }
        return text
    }

    // MARK: CustomNSError

    /// ``domain``.
    public static var errorDomain: String { domain }
    /// The numeric ``Code``.
    public var errorCode: Int { code.rawValue }
    /// `NSLocalizedDescriptionKey` plus "url", "http_status" and "curl_code" where known.
    public var errorUserInfo: [String: Any] {
        var info: [String: Any] = [NSLocalizedDescriptionKey: message]
        if let url { info["url"] = url }
        if let httpStatus { info["http_status"] = httpStatus }
        if let curlCode { info["curl_code"] = curlCode }
        return info
    }
}

extension DWWebImageError {
    /// The same error about `url` (every other field kept). Any thread.
    package func about(_ url: String) -> DWWebImageError {
        var copy = self
        copy.url = url
        return copy
    }

    /// 10007 with ``isBusy``: the transform executor took no more work. Any thread.
    public static func busy(_ url: String?) -> DWWebImageError {
        var error = DWWebImageError(.cancelled, "every worker is busy and the queue is full", url: url)
        error.isBusy = true
        return error
    }
    /// 10000: downloaded bytes that are not a decodable image (`detail` says why, when known). Any thread.
    package static func notAnImage(_ url: String?, bytes: Int, detail: String = "") -> DWWebImageError {
        let suffix = detail.isEmpty ? "" : ": \(detail)"
        return .init(.notAnImage, "downloaded \(bytes) bytes that are not a decodable image\(suffix)", url: url)
    }
    /// 10001: an empty URL. Any thread.
    package static func emptyURL() -> DWWebImageError { .init(.emptyURL, "URL is empty") }
    /// 10002: `url` is not a URL the library fetches (`why` in words). Any thread.
    package static func invalidURL(_ url: String, _ why: String) -> DWWebImageError {
        .init(.invalidURL, "invalid URL: \(why)", url: url)
    }
    /// 10007: the caller (or an invalidation) cancelled the request. Any thread.
    package static func cancelled(_ url: String?) -> DWWebImageError { .init(.cancelled, "cancelled", url: url) }
    /// 10006: only-from-cache asked for a URL the cache does not hold. Any thread.
    package static func notInCache(_ url: String) -> DWWebImageError {
        .init(.notInCache, "not in cache and only-from-cache was requested", url: url)
    }
    /// 10004: the origin answered `status`, with its reason phrase. Any thread.
    package static func http(_ status: Int, url: String?) -> DWWebImageError {
        .init(.httpStatus, "HTTP \(status) \(HTTPStatusText.reason(status))", url: url, httpStatus: status)
    }
    /// 10005: `what` (the body, pixels, frames) of `size` is over `limit`. Any thread.
    package static func tooLarge(_ url: String?, size: Int64, limit: Int64, what: String = "body") -> DWWebImageError {
        overLimit("\(what) of \(size)", limit: limit, size: size, url: url)
    }
    /// 10005: `what` is over the limit of `limit` (`unit` follows the number, e.g. " pixels"); `size` is the value
    /// refused. Any thread.
    package static func overLimit(
        _ what: String, limit: Int64, unit: String = "", size: Int64, url: String? = nil
    ) -> DWWebImageError {
        .init(.tooLarge, "\(what) is over the limit of \(limit)\(unit)", url: url, size: size, limit: limit)
    }
}

// MARK: Kinds only the core builds

extension DWWebImageError {
    /// 10003: curl gave up with `code` and its text. Any thread.
    static func curl(_ code: Int, _ message: String, url: String) -> DWWebImageError {
        .init(.transport, "curl error \(code): \(message)", url: url, curlCode: code)
    }
    /// 10003: `verb` (open, stat, read, map) on the file at `path` failed for `reason`. Any thread.
    static func file(_ verb: String, _ path: String, _ reason: String, url: String? = nil) -> DWWebImageError {
        .init(.transport, "cannot \(verb) \(path): \(reason)", url: url)
    }
    /// 10003: `verb` on the file at `path` failed with the system error `code` (an `errno`). Any thread.
    static func file(_ verb: String, _ path: String, errno code: Int32, url: String? = nil) -> DWWebImageError {
        file(verb, path, String(cString: strerror(code)), url: url)
    }
    /// 10008: the cache entry for `key`, `size` bytes, does not fit the disk budget `limit`. Any thread.
    static func overDiskBudget(_ size: Int64, _ limit: Int64, key: String) -> DWWebImageError {
        .init(.cacheIO, "entry of \(size) bytes is larger than the disk budget (\(limit))", url: key)
    }
    /// 10008: the cache's `what` (a system call and its path) for `key` failed with the system error `code`.
    /// Any thread.
    static func cacheFailure(_ what: String, errno code: Int32, key: String) -> DWWebImageError {
        .init(.cacheIO, "cache \(what) failed: \(String(cString: strerror(code)))", url: key)
    }
}

/// Reason phrases for the statuses an image fetch meets (HTTP/2 has none on the wire).
enum HTTPStatusText {
    static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 413: "Content Too Large"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "status \(status)"
        }
    }
}

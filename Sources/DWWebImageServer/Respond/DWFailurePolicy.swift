// DWFailurePolicy: what a failed source costs the next requests and what its answer says — the negative cache, which
// failures get the fallback image, and how a fallback answer is marked.
import DWWebImage

/// How `serve` answers a source that failed. Set at start; a plain value.
public struct DWFailurePolicy: Sendable, Equatable {
    /// Seconds a failed source (an origin error, a timeout, bytes that are not an image) is answered from the failure
    /// without an origin request (`--negative-ttl`, default 10; 0: off). Answers from it carry `X-Negative-Cache: 1`.
    public var negativeTTL: Double = 10
    /// The same for a 404 or 410 (`--negative-ttl-gone`, default 60): the origin said it is gone.
    public var negativeTTLGone: Double = 60
    /// The failures the fallback image answers (`--fallback-on`, default every one).
    public var fallbackOn = DWFallbackRule.any
    /// The header a fallback answer carries, with the value `1` (`--fallback-header`, default `X-Fallback`).
    public var fallbackHeader = "X-Fallback"

    /// The defaults (see each property).
    public init() {}
}

/// Which failures get the fallback image: a list of an origin status (`404`), a class of them (`4xx`, `5xx`),
/// `timeout` (the origin did not answer in time), `unreachable` (any other transport failure: DNS, refused, reset),
/// `invalid` (bytes that are not an image, or over a limit) — or `any`.
public struct DWFallbackRule: Sendable, Equatable {
    private var statuses: Set<Int> = []
    private var classes: Set<Int> = []
    private var timeout = false, unreachable = false, invalid = false, all = false

    /// Every failure (the default: imgproxy's).
    public static let any: DWFallbackRule = {
        var rule = DWFallbackRule()
        rule.all = true
        return rule
    }()

    /// `404,410,5xx,timeout`; nil for an unknown item.
    public init?(parsing text: String) {
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces).lowercased() }) {
            switch item {
            case "any", "all": all = true
            case "timeout": timeout = true
            case "unreachable": unreachable = true
            case "invalid": invalid = true
            case "4xx", "5xx": classes.insert(item == "4xx" ? 4 : 5)
            default:
                guard let status = Int(item), (400...599).contains(status) else { return nil }
                statuses.insert(status)
            }
        }
    }

    private init() {}

    /// Whether `error` (a failed fetch or render) gets the fallback image.
    public func matches(_ error: DWWebImageError) -> Bool {
        if all { return true }
        switch error.code {
        case .httpStatus:
            guard error.refusedRedirect == nil, let status = error.httpStatus else { return false }
            return statuses.contains(status) || classes.contains(status / 100)
        case .transport:
            guard error.refusedAddress == nil else { return false }
            return error.isTimeout ? timeout : unreachable
        case .notAnImage, .tooLarge:
            return invalid
        default:
            return false
        }
    }
}

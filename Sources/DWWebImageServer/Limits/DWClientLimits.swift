// DWClientLimits: what one client may cost — a budget of cold work (origin fetches and transforms, never cache hits),
// the Referer hosts allowed to embed the images, and the size of a POST /info batch.
import Foundation

/// Per-client limits of `serve` (`--cold-rate`, `--cold-burst`, `--limit-by`, `--allow-referer`, `--max-batch`). Set
/// at start; a plain value.
public struct DWClientLimits: Sendable, Equatable {
    /// Who a budget belongs to.
    public enum Subject: String, Sendable, Equatable {
        /// The connection's remote address (`--limit-by ip`, the default).
        case ip
        /// The signing key that verified the URL (`--limit-by key`): its position among the `--key`s.
        case key
    }

    /// Cold requests refilled per second per client (`--cold-rate N/s`); nil: no budget (the default).
    public var coldRate: Double?
    /// The most cold requests a client may make at once after being idle (`--cold-burst`, default 10).
    public var coldBurst = 10
    /// Whose budget a request is charged to (`--limit-by`).
    public var limitBy = Subject.ip
    /// The most clients whose budgets are kept; past it, full (idle) budgets are forgotten first, then the least
    /// recently used.
    public var maxClients = 10_000
    /// The hosts a request's `Referer` may name (`--allow-referer`, exact or `*.suffix`); empty: any. A request
    /// without a `Referer` is always allowed.
    public var allowedReferers: [String] = []
    /// The most sources in one `POST /info` (`--max-batch`, default 50); more: 413.
    public var maxBatch = 50

    /// The defaults (see each property).
    public init() {}
}

// DWRedirect / DWRedirectDecision / DWRedirectHandler: an app's say over each redirect hop.
import Foundation

/// One redirect about to be followed: who answered, with what, and the request the pipeline would send next.
public struct DWRedirect: Sendable, Equatable {
    /// The URL that answered with the redirect.
    public let from: String
    /// Its status: 301, 302, 303, 307 or 308.
    public let status: Int
    /// Its `Location` header, as sent (possibly relative).
    public let location: String
    /// The request for the next hop: `location` resolved against `from`, with the headers of the request that was
    /// redirected — except `Authorization` and `Cookie`, dropped when the scheme, host or port changes (as libcurl
    /// does).
    public let next: DWURLRequest
    /// 1 for the first redirect of a request, 2 for the second…
    public let hop: Int

    /// A redirect record (the pipeline makes these; public for tests of handlers).
    public init(from: String, status: Int, location: String, next: DWURLRequest, hop: Int) {
        self.from = from
        self.status = status
        self.location = location
        self.next = next
        self.hop = hop
    }
}

/// What to do with one redirect.
public enum DWRedirectDecision: Sendable, Equatable {
    /// Send ``DWRedirect/next`` as it is.
    case follow
    /// Stop here: the request fails with 10004 (the redirect's status) whose ``DWWebImageError/refusedRedirect``
    /// is the resolved target and whose message carries `reason`. Nothing is sent to the target.
    case refuse(reason: String)
    /// Send this request instead (another URL, other headers). It must be http or https (else 10002).
    case rewrite(DWURLRequest)
}

/// Decides each redirect hop of a request (``DWWebImageManager/Configuration/redirectHandler``,
/// ``DWWebImageOptions/redirectHandler(_:)``). Runs in a `Task`, off the transfer thread and off the callback
/// queue; the next hop waits for it. With a handler the pipeline follows redirects itself (each hop is a transfer
/// of its own on the same connection pool, counted against ``DWWebImageManager/Configuration/maxRedirects``);
/// without one, libcurl follows them.
public typealias DWRedirectHandler = @Sendable (DWRedirect) async -> DWRedirectDecision

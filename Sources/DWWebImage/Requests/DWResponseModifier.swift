// DWResponseModifier: the app's look at every response head before any body byte is kept (Kingfisher's
// ResponseModifier / SDWebImage's responseModifier), able to fail a 200 or follow another URL instead.
import Foundation

/// A response head as it arrived, before any body byte is kept.
public struct DWURLResponse: Sendable, Equatable {
    /// The URL that answered (the hop's own URL: with a response modifier the pipeline follows redirects itself).
    public let url: String
    /// The HTTP status.
    public let status: Int
    /// Header name (as sent) → value (repeated headers joined with ", ").
    public let headers: [String: String]

    /// A header's value, the name matched case-insensitively.
    public func header(_ name: String) -> String? {
        if let exact = headers[name] { return exact }
        let lowered = name.lowercased()
        return headers.first { $0.key.lowercased() == lowered }?.value
    }

    /// A head as given.
    public init(url: String, status: Int, headers: [String: String]) {
        self.url = url
        self.status = status
        self.headers = headers
    }
}

/// What a ``DWResponseModifier`` makes of a response head.
public enum DWResponseDecision: Sendable, Equatable {
    /// Go on as the pipeline would (2xx is read; anything else fails as today; a redirect is followed).
    case accept
    /// Fail now: 10004 with this response's status and `reason` in the message; no body kept, nothing cached,
    /// no retry (this is how a 200 becomes a failure).
    case fail(reason: String)
    /// Fetch `url` instead, as a redirect hop of this request (maxRedirects, the connection policy and the redirect
    /// handler apply); the result is cached under the request's own key.
    case follow(url: String)
}

/// Sees every response head (each attempt, each hop the pipeline follows itself: with a modifier set the pipeline
/// follows redirects itself, as with a redirect handler). Called synchronously on the transfer thread, like
/// ``DWConnectionPolicy``: keep it quick.
public typealias DWResponseModifier = @Sendable (DWURLResponse) -> DWResponseDecision

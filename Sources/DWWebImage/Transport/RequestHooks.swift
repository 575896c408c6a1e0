// RequestHooks: the app's request modifiers and redirect handlers for one transfer.
import Foundation

/// The app's say over what is sent: the manager's hooks first, then the request's (``DWWebImageOptions``).
///
/// Modifiers run once per attempt, before the first hop is sent. Redirect handlers, when there is one, make the
/// pipeline follow redirects itself: libcurl 7.88 can only follow a redirect or not (no callback between hops,
/// and no way to send a *different* request), so with a handler `CURLOPT_FOLLOWLOCATION` is off, the 3xx head ends
/// the hop, and ``CurlMulti`` asks the handlers and sends the next hop as a transfer of its own (same easy-handle
/// pool, same connection pool, same connection policy). Without a handler libcurl follows redirects as before.
struct RequestHooks: Sendable {
    /// Request modifiers, applied in order (each gets the previous one's result).
    var modifiers: [DWRequestModifier] = []
    /// Redirect handlers, asked in order: a refusal stops at once, a rewrite is what the next one sees.
    var redirectHandlers: [DWRedirectHandler] = []

    /// The manager's response modifier (asked about every head, on the transfer thread).
    var responseModifier: DWResponseModifier?

    /// Whether the pipeline follows redirects itself (a redirect handler or a response modifier is set).
    var followsRedirects: Bool { !redirectHandlers.isEmpty || responseModifier != nil }

    /// The statuses a redirect handler is asked about (the ones browsers follow); other 3xx are final.
    static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// The manager's hooks, then the request's.
    init(
        modifiers: [DWRequestModifier?] = [], redirectHandlers: [DWRedirectHandler?] = [],
        responseModifier: DWResponseModifier? = nil
    ) {
        self.modifiers = modifiers.compactMap { $0 }
        self.redirectHandlers = redirectHandlers.compactMap { $0 }
        self.responseModifier = responseModifier
    }

    /// Runs the modifiers over `request` (url and header lines); a throw becomes the error the caller sees.
    func modify(_ request: TransferRequest) async -> Result<TransferRequest, DWWebImageError> {
        var current = DWURLRequest(url: request.url, headerLines: request.headers)
        for modifier in modifiers {
            do {
                current = try await modifier(current)
            } catch let error as DWWebImageError {
                return .failure(error)
            } catch is CancellationError {
                return .failure(.cancelled(request.url))
            } catch {
                return .failure(.invalidURL(request.url, "the request modifier failed: \(error)"))
            }
        }
        return Self.apply(current, to: request)
    }

    /// Asks the redirect handlers about one hop; the request to send next, or why not.
    func decide(_ redirect: DWRedirect, base: TransferRequest) async -> Result<TransferRequest, DWWebImageError> {
        var next = redirect.next
        for handler in redirectHandlers {
            let asked = DWRedirect(
                from: redirect.from, status: redirect.status, location: redirect.location,
                next: next, hop: redirect.hop)
            switch await handler(asked) {
            case .follow:
                continue
            case .refuse(let reason):
                var error = DWWebImageError(
                    .httpStatus, "redirect (\(redirect.status)) to \(next.url) refused: \(reason)",
                    url: redirect.from, httpStatus: redirect.status)
                error.refusedRedirect = next.url
                return .failure(error)
            case .rewrite(let request):
                next = request
            }
        }
        return Self.apply(next, to: base)
    }

    /// `base` with the URL (validated: http or https, percent-encoded) and headers of `request`.
    private static func apply(_ request: DWURLRequest, to base: TransferRequest) -> Result<
        TransferRequest, DWWebImageError
    > {
        URLValidator.validate(request.url).map { ascii in
            var next = base
            next.url = ascii
            next.headers = request.headerLines
            return next
        }
    }

    /// The next hop's request: `location` resolved against `from`, its headers carried over except credentials
    /// when the origin (scheme, host, port) changes — libcurl's rule for headers set with `CURLOPT_HTTPHEADER`.
    static func nextRequest(from: TransferRequest, location: String) -> DWURLRequest? {
        guard let base = URL(string: from.url),
            let target = URL(string: location, relativeTo: base)
                ?? URL(
                    string: location.addingPercentEncoding(withAllowedCharacters: locationCharacters) ?? location,
                    relativeTo: base)
        else { return nil }
        var next = DWURLRequest(url: target.absoluteString, headerLines: from.headers)
        if origin(of: base) != origin(of: target) {
            next.setHeader("Authorization", nil)
            next.setHeader("Cookie", nil)
        }
        return next
    }

    /// What may stay as it is in a Location that `URL(string:)` refused (everything else is percent-encoded).
    private static let locationCharacters = CharacterSet.urlQueryAllowed.union(CharacterSet(charactersIn: "#%"))

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }
}

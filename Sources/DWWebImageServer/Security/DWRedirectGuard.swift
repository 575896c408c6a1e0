// DWRedirectGuard: `--allow-host` on every redirect hop, and no credentials smuggled in through a Location.
import DWWebImage
import Foundation

/// The pipeline's redirect handler for a server with `--allow-host`: each hop's target must be an allowed host (the
/// same matching as the first URL's) and carry no `user:password@`; otherwise the redirect is refused before anything
/// is sent to the target (10004 with ``DWWebImageError/refusedRedirect``, answered 403). The address guard still
/// checks every connection. Runs in the pipeline's redirect task.
enum DWRedirectGuard {
    /// The handler for `allowedHosts`; nil when any host is allowed (libcurl then follows redirects itself, each
    /// connection still checked by the address guard).
    static func handler(allowedHosts: [String]) -> DWRedirectHandler? {
        guard !allowedHosts.isEmpty else { return nil }
        return { redirect in
            let target = redirect.next.url
            guard let components = URLComponents(string: target), components.user == nil, components.password == nil
            else { return .refuse(reason: "redirect target is not usable") }
            let host = (components.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return isAllowed(host, by: allowedHosts) ? .follow : .refuse(reason: "redirect to a host not allowed")
        }
    }

    /// Exact host, or a "*.suffix" pattern that also allows the suffix's subdomains; any host when none are set.
    static func isAllowed(_ host: String, by allowedHosts: [String]) -> Bool {
        guard !allowedHosts.isEmpty else { return true }
        return allowedHosts.contains { pattern in
            let pattern = pattern.lowercased()
            if pattern.hasPrefix("*.") {
                let suffix = pattern.dropFirst(1)
                return host.hasSuffix(suffix) || host == suffix.dropFirst()
            }
            return host == pattern
        }
    }
}

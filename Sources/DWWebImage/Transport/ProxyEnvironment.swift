// ProxyEnvironment: whether the environment names a proxy libcurl would use, read once per handle set-up.
import Foundation

/// The proxy variables libcurl reads for an http or https transfer that has no `CURLOPT_PROXY`.
///
/// Without `CURLOPT_PROXY` and `CURLOPT_NOPROXY`, libcurl calls `getenv` five times a transfer (`no_proxy`,
/// `NO_PROXY`, the scheme's `_proxy`, `all_proxy`, `ALL_PROXY`), each a scan of the whole environment. When none of
/// the variables that name a proxy is set, the answer is always "no proxy": ``CurlMulti`` then sets both options to
/// "" when it configures a handle, the same answer with no lookups. A pure read of the environment: any thread.
enum ProxyEnvironment {
    /// Every variable that can name a proxy for http or https (libcurl reads the upper-case `HTTP_PROXY` for
    /// neither; it is listed so that a set one leaves the decision to libcurl, as before).
    static let variables = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]

    /// Whether any of ``variables`` is set (even empty): then libcurl's own environment rules decide.
    static func namesAProxy() -> Bool {
        variables.contains { getenv($0) != nil }
    }
}

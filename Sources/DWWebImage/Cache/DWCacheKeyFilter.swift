// DWCacheKeyFilter: one cache entry for URLs that differ only in what does not name the image (signatures, expiry).
import Foundation

/// Turns a URL into the key its image is cached and coalesced under (Kingfisher's `cacheKey`, Nuke's `imageId`,
/// for a whole manager: ``DWWebImageManager/Configuration/cacheKeyFilter``). Signed CDN URLs whose signature and
/// expiry change every hour then hit the entry cached an hour ago, and two callers of two signatures share one
/// download (made with the first caller's URL). A request's ``DWWebImageOptions/cacheKey(_:)`` wins over it.
///
/// Called on the caller's thread for every request: keep it a quick look at the string.
public struct DWCacheKeyFilter: Sendable {
    private let transform: @Sendable (String) -> String

    /// A filter that maps a URL to its key with `transform`.
    public init(_ transform: @escaping @Sendable (_ url: String) -> String) {
        self.transform = transform
    }

    /// The key for `url`.
    public func key(for url: String) -> String { transform(url) }

    /// Drops the query items whose names are in `names` (compared case-insensitively), keeping the others in
    /// their order: `droppingQueryItems(["X-Amz-Signature", "X-Amz-Date", "X-Amz-Expires", "Expires",
    /// "Signature"])`. A URL without a query, or whose query cannot be parsed, is its own key.
    public static func droppingQueryItems(_ names: Set<String>) -> DWCacheKeyFilter {
        let lowered = Set(names.map { $0.lowercased() })
        return DWCacheKeyFilter { url in
            guard let question = url.firstIndex(of: "?") else { return url }
            let fragmentStart = url[question...].firstIndex(of: "#") ?? url.endIndex
            let query = url[url.index(after: question)..<fragmentStart]
            let kept = query.split(separator: "&", omittingEmptySubsequences: false).filter { item in
                let name = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                let decoded = String(name).removingPercentEncoding ?? String(name)
                return !lowered.contains(decoded.lowercased())
            }
            let head = url[..<question]
            let tail = url[fragmentStart...]
            return kept.isEmpty ? String(head) + tail : String(head) + "?" + kept.joined(separator: "&") + tail
        }
    }
}

// stale-if-error: when the origin fails, an expired copy of the source still on disk answers, marked stale.
import DWWebImage
import HTTPTypes

extension DWImageServer {
    /// `X-Stale: 1`: the answer is an expired copy, served because the origin failed.
    static let staleHeader = HTTPField.Name("X-Stale")!

    /// Whether `error` is the origin failing — a timeout or another transport failure (never an address the policy
    /// refused), or a 5xx, 408 or 429 — so that an expired copy may answer. A 404 or 410 (the source is gone),
    /// bytes that are not an image and limits are the source's own answer: no stale copy for them.
    static func isOriginFailure(_ error: DWWebImageError) -> Bool {
        switch error.code {
        case .transport:
            return error.refusedAddress == nil
        case .httpStatus:
            guard error.refusedRedirect == nil, let status = error.httpStatus else { return false }
            return status >= 500 || status == 408 || status == 429
        default:
            return false
        }
    }

    /// `job`'s answer made from the expired original still on disk (an original the origin sent with an ETag or
    /// Last-Modified stays there up to four `--cache-max-age`s), when `error` is the origin failing; nil otherwise.
    /// The variant made from it is kept nowhere (``DWWebImageOptions/revalidate`` with `fromCacheOnly`), so the
    /// next request asks the origin again. Awaited in the request's task; the transform runs on ``pool``.
    func staleImage(for job: DWImageJob, after error: DWWebImageError) async -> DWImage? {
        guard Self.isOriginFailure(error), !job.isLocal, job.thumbor?.meta == nil else { return nil }
        let options = Self.options(for: job.plan).union([.fromCacheOnly, .revalidate])
        return try? await manager.image(withURL: job.url.source, options: options)
    }

    /// The `Cache-Control` of a stale answer: a minute's caching, and leave to serve it on error for as long as
    /// this server keeps copies (`--cache-max-age`).
    var staleCacheControl: String {
        "max-age=60, stale-if-error=\(Int(configuration.cacheMaxAge))"
    }
}

// The origin's own headers on an image answer: its Last-Modified (and the 304 that allows), its Cache-Control and
// Expires, as imgproxy's IMGPROXY_USE_LAST_MODIFIED and IMGPROXY_CACHE_CONTROL_PASSTHROUGH give them.
import DWWebImage
import Foundation
import HTTPTypes
import Hummingbird

extension DWImageServer {
    /// What the origin sent with the job's original, read from the disk cache's entry for it, when
    /// ``DWServeConfiguration/usesLastModified`` or ``DWServeConfiguration/passesCacheControl`` asks for it; nil
    /// otherwise, and for a fallback image, a `local://` source (memory only) or an original the disk does not hold.
    /// On the caller's thread (one read of the entry).
    func originMetadata(for job: DWImageJob, isFallback: Bool) -> DWCacheEntryMetadata? {
        guard configuration.usesLastModified || configuration.passesCacheControl, !isFallback, !job.isLocal else {
            return nil
        }
        return manager.cache.entryMetadata(forKey: job.url.source)
    }

    /// `response` with the origin's headers: its `Cache-Control` in place of serve's (not over a thumbor `max_age`,
    /// nor for a URL with `exp:`, whose answer imgproxy gives its own max-age) and its `Expires`; an `Expires`
    /// without a `Cache-Control` becomes imgproxy's `max-age=<seconds until then>, public` (0 once past)
    /// (``passingCacheControl(_:to:)``); then its `Last-Modified`, and a 304
    /// when the request's `If-Modified-Since` is not older than that and it sent no `If-None-Match` (which decides
    /// instead, RFC 9110 §13.1.3). On the caller's thread.
    func addingOriginHeaders(
        _ origin: DWCacheEntryMetadata?, to response: Response, for job: DWImageJob,
        request: Request
    ) -> Response {
        guard let origin else { return response }
        var response = response
        if configuration.passesCacheControl, job.thumbor?.maxAge == nil, job.url.options.expires == nil {
            Self.passingCacheControl(origin, to: &response.headers)
        }
        guard configuration.usesLastModified, let lastModified = origin.lastModified else { return response }
        response.headers[.lastModified] = lastModified
        guard response.status == .ok, request.headers[.ifNoneMatch] == nil,
            let since = request.headers[.ifModifiedSince].flatMap(HTTPDate.parse),
            let modified = HTTPDate.parse(lastModified), modified <= since
        else { return response }
        var headers = response.headers
        headers[.contentType] = nil
        headers[.contentLength] = nil
        return Response(status: .notModified, headers: headers)
    }

    /// The origin's `Cache-Control` (verbatim) and `Expires` into `headers`, over serve's own; with only an
    /// `Expires` that parses as an HTTP date, `Cache-Control` says how long until then, as imgproxy derives it.
    static func passingCacheControl(
        _ origin: DWCacheEntryMetadata, to headers: inout HTTPFields,
        now: Date = Date()
    ) {
        let expires = origin.expires.flatMap { $0.isEmpty ? nil : $0 }
        if let expires { headers[.expires] = expires }
        if let cacheControl = origin.cacheControl, !cacheControl.isEmpty {
            headers[.cacheControl] = cacheControl
        } else if let date = expires.flatMap(HTTPDate.parse) {
            headers[.cacheControl] = "max-age=\(max(0, Int(date.timeIntervalSince(now)))), public"
        }
    }
}

// Configuration.transferRequest: what the engine is asked to do for one request under a manager's configuration.
import Foundation

extension DWWebImageManager.Configuration {
    /// The transfer for `url` (validated, or a loader's URL as given) with `headers` and these limits, trust, proxy
    /// and hooks (the manager's, then the request's); signed for ``s3`` when `source`, the caller's URL, is an
    /// `s3://bucket/key` location.
    func transferRequest(
        url: String, source: String, headers: [String: String], options: RequestOptions,
        loader: (any DWImageLoader)?
    ) -> TransferRequest {
        var request = TransferRequest(url: url, configuration: self)
        if !headers.isEmpty { request.headers = headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" } }
        request.loader = loader
        if requestModifier != nil || options.requestModifier != nil || redirectHandler != nil
            || options.redirectHandler != nil || responseModifier != nil
        {
            request.hooks = RequestHooks(
                modifiers: [requestModifier, options.requestModifier],
                redirectHandlers: [redirectHandler, options.redirectHandler], responseModifier: responseModifier)
        }  // else the empty hooks the request has (no arrays made and dropped per request)
        if DWS3Location(source) != nil { request.signForS3(s3) }  // after the headers: the signature covers them
        return request
    }
}

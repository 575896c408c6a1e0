// thumbor's watermark image, fetched for a request the guarded way a source is, and put into the request's plan.
import DWWebImage
import DWWebImageProcessing
import HTTPTypes
import Hummingbird

extension DWImageServer {
    /// `job` with its thumbor watermark (``DWThumborRequest/watermark``; its host already checked against
    /// `--watermark-allow-host`) fetched and put in its plan, or `job` itself without one. The image comes through
    /// the pipeline as a source's original does: the same SSRF guard, address policy, `--max-size`, timeouts,
    /// coalescing and memory/disk caches (and `--revalidate-after`); each redirect hop must be a watermark host.
    /// Its header is checked against the pixel limit before it enters the plan, and its bytes' hash becomes part of
    /// the variant's key (``DWVariantPlan/with(watermark:)``): a changed image is another variant once its cached
    /// copy is fetched again. Awaited in the request's task.
    /// - Throws: the fetch's error, or 10000 for bytes that are no image, 10005 over the pixel limit.
    func withThumborWatermark(_ job: DWImageJob) async throws(DWWebImageError) -> DWImageJob {
        guard let url = job.thumbor?.watermark, let plan = job.plan else { return job }
        // `--revalidate-after` applies to the watermark as to a source: changed bytes replace its cached copy.
        let options = DWImgproxyOptions()
        await revalidateIfDue(DWImageJob(url: DWProxyURL(signature: "", signedPath: "", options: options, source: url),
                                         isLocal: false, named: nil, plan: nil, surrogateKeys: HTTPFields()))
        // Every redirect hop must stay on a watermark host too (before --allow-host's check, if any).
        let hosts = configuration.thumbor.watermarkHosts
        let redirects = DWRedirectGuard.handler(allowedHosts: hosts).map { DWWebImageOptions.redirectHandler($0) }
        let mark = try await manager.image(withURL: url, options: redirects ?? [])
        guard mark.format.mimeType != nil, mark.pixelWidth > 0, mark.pixelHeight > 0 else {
            throw DWWebImageError(.notAnImage, "the thumbor watermark is not an image")
        }
        let pixels = mark.pixelWidth.multipliedReportingOverflow(by: mark.pixelHeight)
        let maxPixels = limits.maxPixelCount
        guard !pixels.overflow, pixels.partialValue <= maxPixels else {
            throw DWWebImageError(.tooLarge, "the thumbor watermark is over the pixel limit of \(maxPixels)",
                                  size: Int64(pixels.overflow ? Int.max : pixels.partialValue), limit: Int64(maxPixels))
        }
        return DWImageJob(url: job.url, isLocal: job.isLocal, named: job.named, plan: plan.with(watermark: mark),
                          surrogateKeys: job.surrogateKeys, thumbor: job.thumbor)
    }

    /// The answer when a thumbor watermark could not be fetched or used: the status a source's failure would get,
    /// its message naming the watermark (thumbor answers 400 for a failed load, 500 for the rest).
    func watermarkRefusal(_ error: DWWebImageError) -> Response {
        if error.isBusy { return busy() }
        let (status, message) = DWStatusMapping.status(for: error)
        return refuse(status, "thumbor watermark: " + message, note: " watermark error \(error.code.rawValue): \(error.message)")
    }
}

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
        await revalidateIfDue(Self.watermarkJob(url))
        // Every redirect hop must stay on a watermark host too (before --allow-host's check, if any).
        let hosts = configuration.thumbor.watermarkHosts
        let redirects = DWRedirectGuard.handler(allowedHosts: hosts).map { DWWebImageOptions.redirectHandler($0) }
        let mark = try await manager.image(withURL: url, options: redirects ?? [])
        guard mark.format.mimeType != nil, mark.pixelWidth > 0, mark.pixelHeight > 0 else {
            throw DWWebImageError(.notAnImage, "the thumbor watermark is not an image")
        }
        try checkPixels(mark)
        return DWImageJob(
            url: job.url, isLocal: job.isLocal, named: job.named, plan: plan.with(watermark: mark),
            surrogateKeys: job.surrogateKeys, thumbor: job.thumbor)
    }

    /// ``withThumborWatermark(_:)`` from the pipeline's memory cache alone, on the caller's thread (no fetch): `job`
    /// itself without a watermark; nil when the watermark is not in memory, is due for `--revalidate-after`, or
    /// fails its checks (the full path then fetches it and answers the failure). Lets a watermarked variant be a
    /// memory hit, and lets `--cold-rate` find it on disk, as any variant.
    func memoryWatermarked(_ job: DWImageJob) -> DWImageJob? {
        guard let url = job.thumbor?.watermark, let plan = job.plan else { return job }
        guard !mayNeedRevalidation(Self.watermarkJob(url)),
            let mark = manager.imageFromMemory(withURL: url, options: []),
            mark.format.mimeType != nil, (try? checkPixels(mark)) != nil
        else { return nil }
        return DWImageJob(
            url: job.url, isLocal: job.isLocal, named: job.named, plan: plan.with(watermark: mark),
            surrogateKeys: job.surrogateKeys, thumbor: job.thumbor)
    }

    /// The watermark's size from its header against `--max-pixels` (10005 over it).
    private func checkPixels(_ mark: DWImage) throws(DWWebImageError) {
        let pixels = mark.pixelWidth.multipliedReportingOverflow(by: mark.pixelHeight)
        let maxPixels = limits.maxPixelCount
        guard !pixels.overflow, pixels.partialValue <= maxPixels else {
            throw DWWebImageError(
                .tooLarge, "the thumbor watermark is over the pixel limit of \(maxPixels)",
                size: Int64(pixels.overflow ? Int.max : pixels.partialValue), limit: Int64(maxPixels))
        }
    }

    /// A job for the watermark's URL alone, for the revalidation bookkeeping, which goes by a job's source.
    private static func watermarkJob(_ url: String) -> DWImageJob {
        DWImageJob(
            url: DWProxyURL(signature: "", signedPath: "", options: DWImgproxyOptions(), source: url),
            isLocal: false, named: nil, plan: nil, surrogateKeys: HTTPFields())
    }

    /// The answer when a thumbor watermark could not be fetched or used: the status a source's failure would get,
    /// its message naming the watermark (thumbor answers 400 for a failed load, 500 for the rest).
    func watermarkRefusal(_ error: DWWebImageError) -> Response {
        if error.isBusy { return busy() }
        let (status, message) = DWStatusMapping.status(for: error)
        return refuse(
            status, "thumbor watermark: " + message, note: " watermark error \(error.code.rawValue): \(error.message)")
    }
}

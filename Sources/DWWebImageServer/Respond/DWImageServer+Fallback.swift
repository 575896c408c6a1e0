// DWImageServer+Fallback: the image answered when a source fails (imgproxy's IMGPROXY_FALLBACK_IMAGE_*).
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The fallback image rendered by `plan`, when one is configured and renders; nil otherwise. Made by the
    /// pipeline (``DWFallbackLoader``) on its transform workers and kept in its memory cache per plan identifier, so
    /// failing requests with a plan seen before cost no render. Awaited on the request's task.
    func fallbackImage(plan: DWVariantPlan?) async -> DWImage? {
        guard let fallbackSource else { return nil }
        var options = Self.options(for: plan)
        options.insert(.cacheMemoryOnly)  // made from a file given at start-up: never worth a disk entry
        return try? await manager.image(withURL: fallbackSource, options: options)
    }
}

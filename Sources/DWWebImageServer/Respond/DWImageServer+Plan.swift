// The variant plan of one image request, made in one place: the URL's transform under this server's rules.
import DWImageTransform
import DWWebImage
import DWWebImageProcessing

extension DWImageServer {
    /// The plan for `url` (nil for `raw:1`: the source's bytes as they are). `bucket` is what the request's `Accept`
    /// allows (``DWAcceptFormats/bucket(accept:)``). The transform is clamped (``DWResultLimits/clamped(_:)``) and
    /// gets the server's per-format qualities; its output format is the URL's (with enforced formats from the bucket
    /// over it, imgproxy's `IMGPROXY_ENFORCE_*`) or, when it names none, picked per source from the bucket and
    /// `--preferred-formats`. An SVG source is kept (sanitised unless `--no-sanitize-svg`) when the URL names no
    /// format or `svg` and either `--always-rasterize-svg` is off or `skp:` lists `svg`; else rasterised, and a URL
    /// naming `svg` for any other source is refused. With nothing to do, a source with metadata is re-encoded
    /// (`--strip-metadata`, the default). Checked from the source's header before any decode: the frame limit, the
    /// result limits and the URL's own security options (`--allow-security-options`; its `maf` changes the frames
    /// processed, so it is part of the key). Without `--max-animation-frames` or `maf`, animations go by budget: the
    /// plan's ``DWVariantPlan/framePixelBudget`` is `--max-result-pixels`. Rendered under this server's limits, timed
    /// in `/metrics`.
    /// Called on the request's task.
    func plan(for url: DWProxyURL, bucket: DWAcceptBucket = DWAcceptBucket()) -> DWVariantPlan? {
        guard !url.options.raw else { return nil }
        let settings = configuration.imgproxy
        var transform = DWResultLimits.clamped(url.options.transform)
        if configuration.neverLarger { transform.neverLarger = true }
        transform.watermark?.opacity *= settings.watermarkOpacity  // imgproxy's IMGPROXY_WATERMARK_OPACITY
        for (format, quality) in settings.formatQuality where transform.formatQuality[format] == nil {
            transform.formatQuality[format] = quality
        }
        if let quality = settings.quality {  // imgproxy's IMGPROXY_QUALITY: under every per-format quality
            for format in DWImageFormat.allCases
            where transform.formatQuality[format] == nil
                && format.defaultQuality == DWImageFormat.defaultQuality
            {
                transform.formatQuality[format] = quality
            }
        }
        let named = transform.format
        let output: DWOutputRule
        if named != nil {
            output = bucket.enforced.isEmpty ? .transform : .enforced(bucket.enforced)
        } else {
            output = .preferred(settings.preferredFormats, negotiated: bucket.preferred)
        }
        let keepsSVG =
            (named == nil || named == .svg)
            && (transform.skipProcessing.contains(.svg) || !settings.alwaysRasterizeSVG)
        let maf = url.options.security.maxAnimationFrames
        var perRequest = limits
        if let maf { perRequest.maxProcessedFrames = maf }  // the URL's `maf` (--allow-security-options)
        let byBudget = maf == nil && configuration.resultLimits.maxAnimationFrames == nil
        let metrics = self.metrics
        return DWVariantPlan(
            transform: transform, output: output,
            svg: keepsSVG ? (settings.sanitizeSVG ? .sanitize : .keep) : .rasterize,
            stripsUnprocessed: configuration.stripMetadata && transform.stripMetadata, limits: perRequest,
            framePixelBudget: byBudget ? configuration.resultLimits.maxPixels : nil,
            checks: checks(for: url, transform: transform), watermark: settings.watermark,
            willRender: {
                metrics.transformStarted()
                metrics.imgproxy.processingStarted()
            },
            didRender: { metrics.transformStep($0) },
            encodeGate: named == nil ? encodeGate(for: url, bucket: bucket) : nil)  // --encode-budget
    }

    /// `--max-frames` over `image`'s frames (from its header): the error, or nil within the limit.
    static func framesError(_ image: DWImage, maxFrames: Int) -> DWWebImageError? {
        guard image.frameCount > maxFrames else { return nil }
        return .overLimit("\(image.frameCount) frames", limit: Int64(maxFrames), size: Int64(image.frameCount))
    }

    /// The header checks of a request's plan: at most `--max-frames` frames, the result limits of `transform`, then
    /// the URL's own security options, if any.
    private func checks(for url: DWProxyURL, transform: DWTransform) -> [DWPlanCheck] {
        let maxFrames = configuration.maxFrames
        let security = url.options.security
        let maf = security.maxAnimationFrames
        var checks = [
            DWPlanCheck { image, _ throws(DWWebImageError) in
                if let error = Self.framesError(image, maxFrames: maxFrames) { throw error }
            },
            resultCheck(transform, maxAnimationFrames: maf)
        ]
        if !security.isEmpty {
            var frameLimits = configuration.resultLimits
            if let maf { frameLimits.maxAnimationFrames = maf }
            let limits = frameLimits
            checks.append(
                DWPlanCheck(identifier: security.identifier) { image, format throws(DWWebImageError) in
                    let size = transform.resultSize(sourceWidth: image.pixelWidth, sourceHeight: image.pixelHeight)
                    try security.check(
                        image,
                        processedFrames: limits.processedFrames(
                            sourceFrames: image.frameCount, keepsFrames: format.savesAnimation, resultWidth: size.width,
                            resultHeight: size.height))
                })
        }
        return checks
    }

    /// The result limits of `options`, checked from the source's header (before any decode). Either orientation of
    /// the header size is checked (EXIF may turn it).
    func resultCheck(_ options: DWTransform, maxAnimationFrames: Int?) -> DWPlanCheck {
        var perRequest = configuration.resultLimits
        if let maxAnimationFrames { perRequest.maxAnimationFrames = maxAnimationFrames }
        let limits = perRequest, maxPixels = self.limits.vectorPixelCap
        return DWPlanCheck { image, format throws(DWWebImageError) in
            if image.format == .svg {
                return try Self.checkVector(image, options, limits: limits, maxPixels: maxPixels)
            }
            let keepsFrames = format.savesAnimation
            for (width, height) in [(image.pixelWidth, image.pixelHeight), (image.pixelHeight, image.pixelWidth)] {
                try limits.check(
                    sourceWidth: width, sourceHeight: height, sourceFrames: image.frameCount,
                    options: options, keepsFrames: keepsFrames)
            }
        }
    }

    /// The result limits for an SVG source: its result size by imgproxy's vector rules
    /// (``DWTransform/vectorResultSize(sourceWidth:sourceHeight:maxPixels:)``; a document without a declared size
    /// is measured by libvips), either orientation, checked as a result of that size.
    static func checkVector(_ image: DWImage, _ options: DWTransform, limits: DWResultLimits, maxPixels: Int)
        throws(DWWebImageError)
    {
        let (width, height) = try image.reportedSize
        for (w, h) in [(width, height), (height, width)] {
            let size = options.vectorResultSize(sourceWidth: w, sourceHeight: h, maxPixels: maxPixels)
            try limits.check(
                sourceWidth: size.width, sourceHeight: size.height, sourceFrames: 1, options: DWTransform(),
                keepsFrames: false)
        }
    }

    /// Whether the source URL carries `user[:password]@` before its host (refused: 400).
    static func hasUserinfo(_ source: String) -> Bool {
        DWURLBytes.hasUserinfo(source)
    }
}

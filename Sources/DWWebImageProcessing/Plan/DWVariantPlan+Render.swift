// Rendering a variant plan: the checks, the per-source decisions, then one canvas, one encode.
import DWWebImage

extension DWVariantPlan {
    /// The variant of `source` (see ``process(_:)``), inside the plan's limits.
    func render(_ source: DWImage) throws(DWWebImageError) -> DWImage {
        try DWImageProcessing.effectiveLimits.checkSourceFormat(source.format)  // before anything reads it
        if source.format == .svg, svg != .rasterize {
            return svg == .sanitize ? try DWSanitizeSVG().process(source) : source
        }
        if transform.format == .svg {
            throw DWWebImageError(.notAnImage, "resulting image format is not supported: svg")
        }
        let checked = transform.format ?? source.format
        for check in checks { try check.check(source, checked) }
        try checkEncodeGate(source)
        guard let gate = encodeGate else { return try renderBudgeted(source, checked) }
        return try DWEncodeGate.$recorder.withValue(DWEncodeGate.Recorder(gate)) {
            () -> Result<DWImage, DWWebImageError> in
            do throws(DWWebImageError) { return .success(try renderBudgeted(source, checked)) } catch {
                return .failure(error)
            }
        }.get()
    }

    /// `source` (checked) rendered under the frame budget's limits when it has any.
    private func renderBudgeted(_ source: DWImage, _ checked: DWImageFormat) throws(DWWebImageError) -> DWImage {
        guard let budgeted = frameBudgetLimits(for: source, format: checked) else { return try renderChecked(source) }
        return try DWImageProcessing.withLimits(budgeted) { () throws(DWWebImageError) -> DWImage in
            try renderChecked(source)
        }
    }

    /// `source` (checked) rendered: served as it is (a `skp:` format, nothing to do), or drawn and encoded.
    private func renderChecked(_ source: DWImage) throws(DWWebImageError) -> DWImage {
        willRender?()
        let clock = ContinuousClock()
        let start = clock.now
        defer { didRender?(clock.now - start) }
        // `skp:` compares the source with the format the transform names (imgproxy's `po.Format`), not with the one
        // chosen per source: a transform naming none skips every listed source format.
        if transform.skipProcessing.contains(source.format),
            transform.format == nil || transform.format == source.format
        {
            return try DWImageProcessors.apply(processors, to: source)
        }
        var steps = transform
        (steps.format, steps.cacheBuster, steps.skipProcessing) = (try outputFormat(for: source), "", [])
        if steps.isIdentity {
            let maxFrames = DWImageProcessing.effectiveLimits.maxProcessedFrames
            guard stripsUnprocessed, !MetadataScan.isClean(source, maxFrames: maxFrames) else {
                return try DWImageProcessors.apply(processors, to: source)
            }
            // re-encoded: metadata gone
            steps.format = DWConvert.formats.contains(source.format) ? source.format : .png
        }
        let drawn = try draw(source, steps)
        return try DWImageProcessors.apply(processors, to: notLarger(drawn, than: source, steps) ? drawn : source)
    }

    /// Whether `result` may be answered rather than `source`: always, unless the transform asks never to be larger
    /// (`nl`, or `mb`) and `result` is the source's format and size and no smaller, and the source's own bytes may
    /// go out (nothing to strip: ``MetadataScan``, or metadata kept).
    private func notLarger(_ result: DWImage, than source: DWImage, _ steps: DWTransform) -> Bool {
        guard steps.neverLarger || steps.maxBytes > 0, result.data.count >= source.data.count,
            result.format == source.format, result.pixelWidth == source.pixelWidth,
            result.pixelHeight == source.pixelHeight, result.frameCount == source.frameCount
        else { return true }
        let maxFrames = DWImageProcessing.effectiveLimits.maxProcessedFrames
        return steps.stripMetadata && !MetadataScan.isClean(source, maxFrames: maxFrames)
    }

    /// `steps` on one canvas of `source`, encoded once (again at lower qualities while over `maxBytes`).
    private func draw(_ source: DWImage, _ steps: DWTransform) throws(DWWebImageError) -> DWImage {
        try Encoder.checkRequest(format: steps.format, quality: steps.quality)
        let canvasSteps = steps.canvasSteps(watermark: watermark)
        return try Engine.process(source, maxBytes: steps.maxBytes) { canvas throws(DWWebImageError) in
            if let format = steps.format { canvas.outputFormat = format }  // the steps keep frames for it, or not
            for step in canvasSteps { try step.apply(to: &canvas) }
            if let format = steps.format { canvas.outputFormat = format }  // over round corners' PNG: named wins
            if steps.quality != nil || !steps.formatQuality.isEmpty {
                let format = canvas.outputFormat
                canvas.quality = steps.quality(for: format, fallback: format.defaultQuality)
            }
            if let plays = steps.loopCount {  // `lp`: plays (0 = forever); the canvas keeps GIF's NETSCAPE2.0 value
                canvas.netscapeLoopCount = plays == 0 ? 0 : plays == 1 ? nil : plays - 1
            }
        }
    }

    /// The format the result is written in; nil for the source's own (see ``DWOutputRule``).
    private func outputFormat(for source: DWImage) throws(DWWebImageError) -> DWImageFormat? {
        switch output {
        case .transform:
            if transform.format == nil, transform.pngToJPEG, source.format == .png,
                !(try DWPreferredFormats.hasAlpha(source))
            {
                return .jpeg  // thumbor's AUTO_PNG_TO_JPG
            }
            return transform.format
        case .enforced(let formats):
            return DWPreferredFormats.negotiated(formats, for: source) ?? transform.format
        case .preferred(let preferred, let negotiated):
            if transform.pngToJPEG, source.format == .png,
                DWPreferredFormats.negotiated(negotiated, for: source) == nil,
                !(try DWPreferredFormats.hasAlpha(source))
            {
                return .jpeg  // thumbor's AUTO_PNG_TO_JPG
            }
            let format = try preferred.outputFormat(
                for: source, negotiated: negotiated,
                addsAlpha: transform.padding != DWPadding() || transform.extend != nil,
                flattens: transform.background != nil)
            // An APNG kept as PNG is named: without a format the engine would make an animated WebP of it, where
            // imgproxy (which reads a PNG's first frame only) writes a PNG.
            return format == source.format && !(source.format == .png && source.isAnimated) ? nil : format
        }
    }
}

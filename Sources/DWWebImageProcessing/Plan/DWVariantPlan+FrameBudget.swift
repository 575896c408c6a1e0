// The frame budget of a variant plan: an animation keeps every frame while they fit it, else its first frame only.
import DWWebImage

extension DWTransform {
    /// Whether `frames` frames of this transform's result over a `sourceWidth` × `sourceHeight` source fit
    /// `pixelBudget`: frames × result width × result height (``resultSize(sourceWidth:sourceHeight:)``), for either
    /// orientation of the source (EXIF may turn it). Pure; any thread.
    public func framesFit(_ frames: Int, sourceWidth: Int, sourceHeight: Int, pixelBudget: Int) -> Bool {
        for (width, height) in [(sourceWidth, sourceHeight), (sourceHeight, sourceWidth)] {
            let size = resultSize(sourceWidth: width, sourceHeight: height)
            let (pixels, overflow) = (size.width * size.height).multipliedReportingOverflow(by: frames)
            if overflow || pixels > pixelBudget { return false }
        }
        return true
    }
}

extension DWVariantPlan {
    /// The limits an animated `source` renders under when the plan's ``framePixelBudget`` drops its frames (its
    /// first frame only: ``DWProcessingLimits/maxProcessedFrames`` 1); nil when the plan's own limits apply: no
    /// budget, a still source, or an animation that keeps every frame. It keeps them when `format` (the output
    /// format the header checks see: the transform's, else the source's) writes animations, its frames × result
    /// pixels fit the budget (``DWTransform/framesFit(_:sourceWidth:sourceHeight:pixelBudget:)``) and its frames
    /// decode within ``DWProcessingLimits/maxTotalPixelCount`` (so a budget never turns a first frame into a 422).
    /// On the rendering thread, inside the plan's limits.
    func frameBudgetLimits(for source: DWImage, format: DWImageFormat) -> DWProcessingLimits? {
        guard let framePixelBudget, source.frameCount > 1 else { return nil }
        var limits = DWImageProcessing.effectiveLimits
        let decoded = (source.pixelWidth * source.pixelHeight).multipliedReportingOverflow(by: source.frameCount)
        if format.savesAnimation, !decoded.overflow, decoded.partialValue <= limits.maxTotalPixelCount,
            transform.framesFit(
                source.frameCount, sourceWidth: source.pixelWidth, sourceHeight: source.pixelHeight,
                pixelBudget: framePixelBudget)
        {
            return nil
        }
        limits.maxProcessedFrames = 1
        return limits
    }
}

// DWResultLimits: what a transform may produce, decided from the source's header and the URL's options alone.
import DWWebImage
import DWWebImageProcessing

/// Limits on a transform's *output* (`--max-result-dimension`, `--max-result-pixels`, `--max-animation-frames`),
/// checked from the source's header size and the request's ``DWTransform`` before anything is decoded, and
/// the clamps applied to options whose cost grows without bound (blur sigma).
///
/// A plain value: every function is pure and may run on any thread (the server calls it on the transform's thread,
/// as the first check of the variant plan).
public struct DWResultLimits: Sendable, Equatable {
    /// Largest result width or height in pixels (default 8192); a larger result is refused (422) before anything is
    /// decoded. imgproxy has no such refusal (its `max_result_dimension` scales down:
    /// ``DWTransform/maxResultDimension``); it is what keeps a URL with no bounds of its own (`w:100000/el:1`,
    /// `dpr:20`) from a big allocation.
    public var maxDimension = 8192
    /// Largest result pixel count, frames × width × height (default 16.8 MP, imgproxy's `IMGPROXY_MAX_SRC_RESOLUTION`).
    public var maxPixels = 16_800_000
    /// Frames of an animation that are processed, the rest dropped (imgproxy's `IMGPROXY_MAX_ANIMATION_FRAMES`; 1:
    /// the first frame, imgproxy's default). nil (the default): animations by budget, every frame while frames ×
    /// result width × result height fits ``maxPixels``, else the first frame only.
    public var maxAnimationFrames: Int?
    /// Largest Gaussian blur sigma (default 50): larger asks are clamped to it, so `bl:99.1` and `bl:99.2` are one
    /// transform and one cache entry.
    public static let maxBlurSigma = DWFilterClamps.blurSigma

    /// The defaults above.
    public init() {}

    /// The size a transform of a `sourceWidth` × `sourceHeight` image by `options` produces (the upright header size;
    /// imgproxy's arithmetic, ``DWTransform/resultSize(sourceWidth:sourceHeight:)``: box, zoom, DPR, min sizes, fill
    /// crop, extend, padding, `mrd`; never larger than the source unless enlarging, extending or padding).
    public static func resultSize(sourceWidth: Int, sourceHeight: Int, options: DWTransform) -> (
        width: Int, height: Int
    ) {
        options.resultSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight)
    }

    /// The frames of a `sourceFrames`-frame source that are processed and written, for a result of `resultWidth` ×
    /// `resultHeight` pixels: at most ``maxAnimationFrames``; by budget without it (all, or 1 when over ``maxPixels``).
    public func processedFrames(sourceFrames: Int, keepsFrames: Bool, resultWidth: Int, resultHeight: Int) -> Int {
        guard keepsFrames, sourceFrames > 1 else { return 1 }
        if let maxAnimationFrames { return max(1, min(sourceFrames, maxAnimationFrames)) }
        let (pixels, overflow) = (resultWidth * resultHeight).multipliedReportingOverflow(by: sourceFrames)
        return overflow || pixels > maxPixels ? 1 : sourceFrames
    }

    /// Throws 10005 (the server's 422) when the result of `options` over a source of this header size would be
    /// wider or taller than ``maxDimension``, or its frames × pixels over ``maxPixels``.
    /// `keepsFrames`: whether the output format keeps an animation's frames (``DWImageFormat/savesAnimation``).
    public func check(
        sourceWidth: Int, sourceHeight: Int, sourceFrames: Int, options: DWTransform,
        keepsFrames: Bool
    ) throws(DWWebImageError) {
        let (width, height) = Self.resultSize(sourceWidth: sourceWidth, sourceHeight: sourceHeight, options: options)
        if width > maxDimension || height > maxDimension {
            throw .overLimit(
                "result \(width)×\(height)", limit: Int64(maxDimension), unit: " per side",
                size: Int64(max(width, height)))
        }
        let frames = processedFrames(
            sourceFrames: sourceFrames, keepsFrames: keepsFrames, resultWidth: width,
            resultHeight: height)
        let (pixels, overflow) = (width * height).multipliedReportingOverflow(by: frames)
        if overflow || pixels > maxPixels {
            throw .overLimit(
                "result of \(frames) × \(width)×\(height) pixels", limit: Int64(maxPixels),
                size: overflow ? .max : Int64(pixels))
        }
    }

    /// `options` with every unbounded cost clamped by the one table, ``DWFilterClamps`` (blur sigma at most
    /// ``maxBlurSigma``, sharpen's too, rounded to 0.01, so near-identical sigmas share one transform).
    public static func clamped(_ options: DWTransform) -> DWTransform {
        DWFilterClamps.clamp(options)
    }
}

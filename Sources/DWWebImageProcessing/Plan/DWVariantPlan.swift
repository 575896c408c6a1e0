// DWVariantPlan: everything that makes one variant of a source — the transform, the output rule, the SVG rule, the
// checks — as one value whose identifier is the variant's cache key, rendered once.
import DWWebImage
import Foundation

/// One variant of a source, planned: imgproxy's `ProcessingOptions` → `ProcessImage` shape. The plan holds the
/// transform (geometry, pixels, encoding), how the output format is chosen (``DWOutputRule``), what an SVG source
/// gets (``DWSVGHandling``), the checks of the source's header (``DWPlanCheck``), the limits it runs under, and any
/// processors a library user adds after it. Its ``identifier`` is a function of all of that, so
/// ``DWImageProcessors/cacheKey(url:processors:)`` of `[plan]` is the variant's key, and equal plans share it.
///
/// ``process(_:)`` renders it: the source's format and header checked once, then (unless the source is served as
/// it is: an SVG kept, a `skp:` format, nothing to do) decoded once, every step on one canvas, encoded once (again at
/// lower qualities for a byte limit), then the added processors. `dwfetch` makes one from its flags
/// (``DWTransform/plan(watermark:)``), `dwfetch serve` from each URL; pass it as `.processors([plan])`.
/// Runs on the caller's thread (the pipeline's work queue or a server's worker); a plain value, safe to share.
public struct DWVariantPlan: DWImageProcessor {
    /// The steps and the encoding.
    public let transform: DWTransform
    /// How the output format is chosen: the transform's, preferred formats for the `Accept` bucket, or enforced.
    public let output: DWOutputRule
    /// What an SVG source becomes: rasterised, kept as it is, or kept sanitised.
    public let svg: DWSVGHandling
    /// With nothing to do, a source that carries metadata (EXIF, XMP, IPTC, comments, an ICC profile) or more
    /// frames than are processed is re-encoded in its own format (`dwfetch serve`'s default); else it is the result.
    public let stripsUnprocessed: Bool
    /// The limits every decode checks (nil: the process-wide ``DWImageProcessing/limits``).
    public let limits: DWProcessingLimits?
    /// Animations by budget (`dwfetch serve` without `--max-animation-frames`: its `--max-result-pixels`): an
    /// animation keeps every frame while frames × result width × result height fits this (and its frames decode
    /// within ``limits``), else only its first frame is processed; nil: ``limits``' `maxProcessedFrames` decides.
    /// Like ``limits``, not part of ``identifier`` (so serve's keys stay `dwfetch`'s): a cache holding variants made
    /// under another budget tells them apart itself (`dwfetch serve`'s cache policy names it).
    public let framePixelBudget: Int?
    /// Checks of the source's header, run in order before any decode (a server's frame and result limits).
    public let checks: [DWPlanCheck]
    /// The image ``DWTransform/watermark`` or a ``DWPixelFilter/watermark(_:)`` draws.
    public let watermark: DWImage?
    /// Processors applied to the rendered result, in order.
    public let processors: [any DWImageProcessor]
    /// Called on the rendering thread when a render starts its work (after the checks).
    public let willRender: (@Sendable () -> Void)?
    /// Called on the rendering thread when a render ends, with its duration.
    public let didRender: (@Sendable (Duration) -> Void)?
    /// Asked before an encode in a format the `Accept` bucket picked, told after each encode (a server's
    /// `--encode-budget`); nil: none. Like ``limits``, not part of ``identifier``: a deferred render stores nothing.
    public let encodeGate: DWEncodeGate?
    /// `plan(<transform>[;wm=…][;<output rule>][;svg=…][;strip][;<checks>])` then `+<processor>` for each added one:
    /// made once, here.
    public let identifier: String

    /// A plan (see the type's doc); the defaults are `dwfetch`'s: the transform's format, SVG rasterised, nothing
    /// stripped when there is nothing to do, the process-wide limits, no checks.
    public init(
        transform: DWTransform, output: DWOutputRule = .transform, svg: DWSVGHandling = .rasterize,
        stripsUnprocessed: Bool = false, limits: DWProcessingLimits? = nil, framePixelBudget: Int? = nil,
        checks: [DWPlanCheck] = [], watermark: DWImage? = nil, processors: [any DWImageProcessor] = [],
        willRender: (@Sendable () -> Void)? = nil, didRender: (@Sendable (Duration) -> Void)? = nil,
        encodeGate: DWEncodeGate? = nil
    ) {
        (self.transform, self.output, self.svg, self.stripsUnprocessed) = (transform, output, svg, stripsUnprocessed)
        self.encodeGate = encodeGate
        (self.limits, self.checks, self.watermark, self.processors) = (limits, checks, watermark, processors)
        (self.willRender, self.didRender, self.framePixelBudget) = (willRender, didRender, framePixelBudget)
        var parts = [transform.identifier]
        if transform.drawsWatermark, let watermark {
            parts.append("wm=" + String(Self.fnv1a(watermark.data), radix: 16))
        }
        parts.append(output.identifier)
        if svg != .rasterize { parts.append("svg=\(svg.rawValue)") }
        var steps = transform
        (steps.cacheBuster, steps.skipProcessing) = ("", [])
        if stripsUnprocessed && steps.isIdentity { parts.append("strip") }  // the only plans it can change
        parts += checks.map(\.identifier)
        identifier =
            "plan(" + parts.filter { !$0.isEmpty }.joined(separator: ";") + ")"
            + processors.map { "+" + $0.identifier }.joined()
    }

    /// The variant of `source`, rendered as the type's doc says, under ``limits``.
    /// - Throws: ``DWWebImageError`` 10000 for a source that does not decode or a format not allowed, 10005 over a
    ///   limit, whatever a check throws, 10007 when the work was stopped, ``DWEncodeGate/deferral(_:)`` when the
    ///   ``encodeGate`` refuses the encode.
    public func process(_ source: DWImage) throws(DWWebImageError) -> DWImage {
        guard let limits else { return try render(source) }
        return try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) -> DWImage in try render(source) }
    }

    /// This plan drawing `watermark` (its bytes named in the ``identifier``, so a changed image is another variant):
    /// a server fetches a thumbor watermark after it planned the request.
    public func with(watermark: DWImage) -> DWVariantPlan {
        copy(output: output, watermark: watermark, encodeGate: encodeGate)
    }

    /// This plan with `output`, `watermark` and `encodeGate` (the identifier made again): the one list of the
    /// init's arguments that every `with` goes through, so none drops a field.
    func copy(output: DWOutputRule, watermark: DWImage?, encodeGate: DWEncodeGate?) -> DWVariantPlan {
        DWVariantPlan(
            transform: transform, output: output, svg: svg, stripsUnprocessed: stripsUnprocessed,
            limits: limits, framePixelBudget: framePixelBudget, checks: checks, watermark: watermark,
            processors: processors, willRender: willRender, didRender: didRender, encodeGate: encodeGate)
    }

    /// FNV-1a over `data`: names the watermark's bytes in the identifier (not a security measure).
    static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

// DWOutputRule, DWSVGHandling and DWPlanCheck: the parts of a variant plan that decide per source.
import DWWebImage

/// How a ``DWVariantPlan`` picks its output format.
public enum DWOutputRule: Sendable, Hashable {
    /// The transform's format; without one, the source's own (PNG for one the engine does not write; an animated
    /// PNG whose frames are processed becomes animated WebP).
    case transform
    /// The transform names no format: the first of `negotiated` (what the request's `Accept` allows, in imgproxy's
    /// order) that fits the result, else the preferred formats' choice for the source
    /// (``DWPreferredFormats/outputFormat(for:negotiated:addsAlpha:flattens:)``, imgproxy's
    /// `IMGPROXY_PREFERRED_FORMATS`).
    case preferred(DWPreferredFormats, negotiated: [DWImageFormat])
    /// The first of `formats` that fits the result (JPEG XL and AVIF for a still one only: imgproxy's
    /// `IMGPROXY_ENFORCE_*`), else the transform's format.
    case enforced([DWImageFormat])

    /// The identifier part (empty for ``transform``).
    var identifier: String {
        switch self {
        case .transform: ""
        case .preferred(let formats, let negotiated):
            "out=preferred(\(formats.description);accept="
                + "\(negotiated.isEmpty ? "-" : negotiated.map(\.rawValue).joined(separator: ",")))"
        case .enforced(let formats): "out=enforced(\(formats.map(\.rawValue).joined(separator: ",")))"
        }
    }
}

/// What a ``DWVariantPlan`` does with an SVG source.
public enum DWSVGHandling: String, Sendable, Hashable {
    /// Rasterised by the plan's steps, as any other source.
    case rasterize
    /// Served as it is (the plan's steps do not run).
    case keep
    /// Served as SVG through ``DWSVGSanitizer`` (imgproxy's `IMGPROXY_SANITIZE_SVG`).
    case sanitize
}

/// A check a ``DWVariantPlan`` runs on the source's header facts before anything is decoded (a server's frame and
/// result limits, a URL's own security options). Called on the rendering thread, inside the plan's limits.
public struct DWPlanCheck: Sendable {
    /// Names what the check changes in the result (a URL's `maf`, say) for the plan's identifier; empty when it only
    /// refuses.
    public let identifier: String
    /// Throws to refuse `source`; `outputFormat` is the format the result is written in (the source's own when the
    /// plan keeps it, or before a per-source choice).
    public let check: @Sendable (_ source: DWImage, _ outputFormat: DWImageFormat) throws(DWWebImageError) -> Void

    /// A check named `identifier`.
    public init(
        identifier: String = "",
        _ check: @escaping @Sendable (DWImage, DWImageFormat) throws(DWWebImageError) -> Void
    ) {
        self.identifier = identifier
        self.check = check
    }
}

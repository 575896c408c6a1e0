// DWSanitizeSVG: an SVG source kept as SVG, sanitised (DWSVGSanitizer); any other image goes through unchanged.
import DWWebImage
import Foundation

/// Serves an SVG as SVG, through ``DWSVGSanitizer`` (imgproxy's `IMGPROXY_SANITIZE_SVG`); other images are
/// returned as they are. `process(_:)` runs on the caller's thread; a plain value.
public struct DWSanitizeSVG: DWImageProcessor {
    /// A sanitiser step.
    public init() {}

    /// `sanitize-svg`.
    public var identifier: String { "sanitize-svg" }

    /// The sanitised SVG (10000 when it does not tokenise); other formats unchanged.
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        guard image.format == .svg else { return image }
        return try DWImage(data: DWSVGSanitizer.sanitize(image.data))
    }
}

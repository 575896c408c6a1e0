// DWBlur: Gaussian blur (alpha-aware).
internal import CVips
import DWWebImage
import Foundation

/// A Gaussian blur of standard deviation `sigma` pixels. Images with alpha are blurred premultiplied, so transparent
/// pixels' hidden colour does not bleed in. Every frame of an animated GIF is blurred.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWBlur: DWImageProcessor, Hashable {
    /// The blur's standard deviation in pixels.
    public let sigma: Double

    /// A blur of `sigma` pixels.
    ///
    /// - Precondition: `sigma` is finite, above 0 and at most 1000; `process(_:)` then fails only for the image.
    public init(sigma: Double) {
        precondition(sigma.isFinite && sigma > 0 && sigma <= 1000, "DWBlur needs 0 < sigma ≤ 1000 (got \(sigma))")
        self.sigma = sigma
    }

    /// `blur(<sigma>)`.
    public var identifier: String { "blur(\(sigma))" }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        try canvas.mapFrames { frame throws(DWWebImageError) in
            guard frame.hasAlpha else {
                return try Vips.make("cannot blur") { cvips_gaussblur(frame.pointer, sigma, $0) }
            }
            let premultiplied = try Vips.make("cannot blur") { cvips_premultiply(frame.pointer, $0) }
            let blurred = try Vips.make("cannot blur") { cvips_gaussblur(premultiplied.pointer, sigma, $0) }
            let straight = try Vips.make("cannot blur") { cvips_unpremultiply(blurred.pointer, $0) }
            return try Vips.make("cannot blur") { cvips_cast_uchar(straight.pointer, $0) }
        }
    }
}

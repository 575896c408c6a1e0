// DWRoundCorners: transparent, anti-aliased rounded corners.
internal import CVips
import DWWebImage
import Foundation

/// Makes the corners transparent with quarter circles of `radius` pixels (anti-aliased); a radius of half the
/// shorter side gives a circle or a stadium. Larger radii are cut to that.
///
/// The output needs alpha: a source whose format has none (JPEG) becomes **PNG**; every other format keeps its own
/// (PNG, WebP, GIF, AVIF, HEIC, TIFF). A later ``DWConvert`` to JPEG puts the corners on white.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWRoundCorners: DWImageProcessor, Hashable {
    /// The corners' radius in pixels.
    public let radius: Double

    /// Rounded corners of `radius` pixels.
    ///
    /// - Precondition: `radius` is finite and at least 0; `process(_:)` then fails only for the image.
    public init(radius: Double) {
        precondition(radius.isFinite && radius >= 0, "DWRoundCorners needs a radius ≥ 0 (got \(radius))")
        self.radius = radius
    }

    /// `round(<radius>)`.
    public var identifier: String { "round(\(radius))" }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        if !canvas.outputFormat.savesAlpha { canvas.outputFormat = .png }
        try canvas.mapFrames { frame throws(DWWebImageError) in try round(frame) }
    }

    private func round(_ frame: VImage) throws(DWWebImageError) -> VImage {
        let w = frame.width, h = frame.height
        let mask = Self.mask(width: w, height: h, radius: min(radius, Double(min(w, h)) / 2))
        let maskImage = try borrowBytes(mask) { (bytes: UnsafeRawBufferPointer) throws(DWWebImageError) -> VImage in
            try Vips.make("cannot make the corner mask") {
                cvips_from_memory(bytes.baseAddress!, bytes.count, Int32(w), Int32(h), 1, $0)
            }
        }
        guard frame.hasAlpha else {
            return try Vips.make("cannot add alpha") { cvips_bandjoin2(frame.pointer, maskImage.pointer, $0) }
        }
        let colour = try Vips.make("cannot split bands") { cvips_extract_band(frame.pointer, 0, 3, $0) }
        let alpha = try Vips.make("cannot split bands") { cvips_extract_band(frame.pointer, 3, 1, $0) }
        let product = try Vips.make("cannot mask alpha") { cvips_multiply(alpha.pointer, maskImage.pointer, $0) }
        var scale = 1.0 / 255, offset = 0.0
        let masked = try Vips.make("cannot mask alpha") { cvips_linear_uchar(product.pointer, &scale, &offset, 1, $0) }
        return try Vips.make("cannot join bands") { cvips_bandjoin2(colour.pointer, masked.pointer, $0) }
    }

    /// Opacity 0…255 per pixel: 255 inside, 0 outside the rounded rectangle, the edge anti-aliased by coverage.
    static func mask(width: Int, height: Int, radius: Double) -> [UInt8] {
        var mask = [UInt8](repeating: 255, count: width * height)
        guard radius > 0 else { return mask }
        let span = Int(radius.rounded(.up))
        for dy in 0..<min(span, height) {
            for dx in 0..<min(span, width) {
                // Distance of the pixel centre from the corner circle's centre (radius, radius).
                let cx = radius - (Double(dx) + 0.5), cy = radius - (Double(dy) + 0.5)
                guard cx > 0, cy > 0 else { continue }
                let coverage = min(1, max(0, radius - (cx * cx + cy * cy).squareRoot() + 0.5))
                let value = UInt8((coverage * 255).rounded())
                for (x, y) in [(dx, dy), (width - 1 - dx, dy), (dx, height - 1 - dy), (width - 1 - dx, height - 1 - dy)]
                {
                    mask[y * width + x] = min(mask[y * width + x], value)
                }
            }
        }
        return mask
    }
}

// DWTint: a colour blended over the image.
internal import CVips
import DWWebImage
import Foundation

/// Blends the colour (`red`, `green`, `blue`, each 0…1) over every pixel with opacity `alpha` (0…1):
/// `out = colour × alpha + pixel × (1 − alpha)`; the image's own alpha is kept (Kingfisher's and Imaginary's tint).
/// Every frame of an animated GIF is tinted.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWTint: DWImageProcessor, Hashable {
    /// The colour's red component, 0…1.
    public let red: Double
    /// The colour's green component, 0…1.
    public let green: Double
    /// The colour's blue component, 0…1.
    public let blue: Double
    /// The colour's opacity over the pixels, 0…1.
    public let alpha: Double

    /// A tint; components are clamped to 0…1.
    public init(red: Double, green: Double, blue: Double, alpha: Double) {
        func clamp(_ v: Double) -> Double { v.isFinite ? min(1, max(0, v)) : 0 }
        self.red = clamp(red)
        self.green = clamp(green)
        self.blue = clamp(blue)
        self.alpha = clamp(alpha)
    }

    /// `tint(<r>,<g>,<b>,<a>)`.
    public var identifier: String { "tint(\(red),\(green),\(blue),\(alpha))" }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        try canvas.mapFrames { frame throws(DWWebImageError) in
            var a = [1 - alpha, 1 - alpha, 1 - alpha]
            var b = [red * 255 * alpha, green * 255 * alpha, blue * 255 * alpha]
            if frame.bands == 4 {
                a.append(1)
                b.append(0)
            }
            let bands = Int32(a.count)
            return try Vips.make("cannot tint") { cvips_linear_uchar(frame.pointer, &a, &b, bands, $0) }
        }
    }
}

// DWGrayscale: luminance only.
internal import CVips
import DWWebImage
import Foundation

/// Grey levels from the sRGB luminance (libvips' B_W colourspace), kept as sRGB pixels (alpha kept). Every frame of
/// an animated GIF is converted.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWGrayscale: DWImageProcessor, Hashable {
    /// The grayscale processor (it has no parameters).
    public init() {}

    /// `grayscale`.
    public var identifier: String { "grayscale" }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        try canvas.mapFrames { frame throws(DWWebImageError) in
            let grey = try Vips.make("cannot convert to grey") {
                cvips_colourspace(frame.pointer, VipsInterpretation.grey16, $0)
            }
            return try Vips.make("cannot convert to grey") {
                cvips_colourspace(grey.pointer, VipsInterpretation.sRGB, $0)
            }
        }
    }
}

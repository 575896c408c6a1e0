// DWCrop: a rectangle of the upright image.
internal import CVips
import DWWebImage
import Foundation

/// Crops to the rectangle at (`x`, `y`) of `width` × `height`, in pixels of the upright image (EXIF orientation
/// applied), (0, 0) being the top-left corner. A rectangle reaching past the edges is cut to the image; one that
/// misses the image entirely is 10000. Every frame of an animated GIF is cropped alike.
///
/// `process(_:)` runs on the caller's thread; instances are plain values, safe to share.
public struct DWCrop: DWImageProcessor, Hashable {
    /// The rectangle's left edge, in pixels from the upright image's left.
    public let x: Int
    /// The rectangle's top edge, in pixels from the upright image's top.
    public let y: Int
    /// The rectangle's width in pixels (> 0).
    public let width: Int
    /// The rectangle's height in pixels (> 0).
    public let height: Int

    /// A crop to the rectangle at (`x`, `y`) of `width` × `height`.
    ///
    /// - Precondition: `width` and `height` are above 0; `process(_:)` then fails only for an image the rectangle
    ///   misses (10000) or bytes that do not decode.
    public init(x: Int, y: Int, width: Int, height: Int) {
        precondition(width > 0 && height > 0, "DWCrop needs a width and height above 0 (got \(width)x\(height))")
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `crop(<x>,<y>,<w>x<h>)`.
    public var identifier: String { "crop(\(x),\(y),\(width)x\(height))" }

    /// The cropped image (same format as the input, unless a processor before it changed that).
    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.process(image) { canvas throws(DWWebImageError) in try apply(to: &canvas) }
    }

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        try canvas.mapFrames { frame throws(DWWebImageError) in
            let left = max(0, x), top = max(0, y)
            let right = min(frame.width, x.addingReportingOverflow(width).overflow ? Int.max : x + width)
            let bottom = min(frame.height, y.addingReportingOverflow(height).overflow ? Int.max : y + height)
            guard right > left, bottom > top else {
                throw DWWebImageError(
                    .notAnImage,
                    "\(identifier) lies outside the \(frame.width)×\(frame.height) image")
            }
            return try Vips.make("cannot crop") {
                cvips_extract_area(frame.pointer, Int32(left), Int32(top), Int32(right - left), Int32(bottom - top), $0)
            }
        }
    }
}

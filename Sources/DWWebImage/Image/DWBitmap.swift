// DWBitmap: decoded pixels — RGBA8, straight alpha, sRGB, top row first.
import Foundation

/// A decoded image: 8-bit RGBA, straight (not premultiplied) alpha, sRGB, rows top first, EXIF orientation applied.
///
/// Made by an engine (`DWImage.bitmap()` in `DWWebImageProcessing`) or by hand; a plain value, safe to share.
public struct DWBitmap: Sendable, Equatable {
    /// Width in pixels.
    public let width: Int
    /// Height in pixels.
    public let height: Int
    /// Bytes from the start of one row to the next (at least `width × 4`).
    public let bytesPerRow: Int
    /// `bytesPerRow × height` bytes, R G B A per pixel.
    public let pixels: Data

    /// Wraps `pixels`; returns nil when the sizes do not agree (`bytesPerRow < width × 4` or too few bytes).
    public init?(width: Int, height: Int, bytesPerRow: Int? = nil, pixels: Data) {
        let rowBytes = bytesPerRow ?? width * 4
        guard width > 0, height > 0, rowBytes >= width * 4,
            rowBytes.multipliedReportingOverflow(by: height).partialValue <= pixels.count
        else { return nil }
        self.width = width
        self.height = height
        self.bytesPerRow = rowBytes
        self.pixels = pixels
    }

    /// The RGBA bytes of the pixel at (`x`, `y`), (0, 0) being the top-left corner.
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = pixels.startIndex + y * bytesPerRow + x * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}

extension DWImageFrame {
    /// This frame's canvas as a bitmap.
    public var bitmap: DWBitmap {
        DWBitmap(width: width, height: height, pixels: Data(pixels))!  // a frame's pixels are width × height × 4
    }
}

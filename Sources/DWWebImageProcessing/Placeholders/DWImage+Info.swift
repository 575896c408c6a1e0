// DWImage+Info: the facts /info reports that need the engine — the EXIF orientation and the average colour.
internal import CVips
import DWWebImage
import Foundation

extension DWImage {
    /// The EXIF orientation (1…8) libvips reads from the header; 1 when there is none or the format has none.
    /// Runs on the caller's thread; decodes no pixels.
    public var exifOrientation: Int {
        get throws(DWWebImageError) {
            guard Decoder.vipsLoader(for: format) != nil else { return 1 }
            return try Decoder.open(data, format: format).int("orientation") ?? 1
        }
    }

    /// The width and height `/info` reports: the header's; for an SVG, after ``SVGGuard`` has read it under the
    /// limits in force, its declared size, or 300 × 150 when it declares none (measured from the document: nothing
    /// is rendered). Runs on the caller's thread.
    public var reportedSize: (width: Int, height: Int) {
        get throws(DWWebImageError) {
            format == .svg ? try SVGRaster.intrinsicSize(of: self) : (pixelWidth, pixelHeight)
        }
    }

    /// The mean colour and alpha of the first frame (over a ≤ 64 × 64 thumbnail, sRGB values averaged), as 0…255.
    /// Runs on the caller's thread.
    public var averageColor: (red: Int, green: Int, blue: Int, alpha: Int) {
        get throws(DWWebImageError) {
            let small = max(pixelWidth, pixelHeight) > 64 ? try DWResize(width: 64, height: 64).process(self) : self
            let bitmap = try small.bitmap()
            var sums = [0, 0, 0, 0]
            for y in 0..<bitmap.height {
                for x in 0..<bitmap.width {
                    let i = y * bitmap.bytesPerRow + x * 4
                    for band in 0..<4 { sums[band] += Int(bitmap.pixels[i + band]) }
                }
            }
            let count = max(1, bitmap.width * bitmap.height)
            let mean = sums.map { Int((Double($0) / Double(count)).rounded()) }
            return (mean[0], mean[1], mean[2], mean[3])
        }
    }
}

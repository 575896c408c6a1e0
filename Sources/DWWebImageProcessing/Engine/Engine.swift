// Engine: one canvas's work — open the image, change it, encode once (again at lower qualities over a byte limit),
// read the result back.
import DWWebImage
import Foundation

/// Runs the engine's work on a canvas: open the image, let `body` change it, encode once (again at lower qualities
/// while a `maxBytes` limit is exceeded), read the result back.
enum Engine {
    static func process(_ image: DWImage, maxBytes: Int = 0, _ body: (inout Canvas) throws(DWWebImageError) -> Void)
        throws(DWWebImageError) -> DWImage
    {
        try Vips.start()
        var canvas = try Canvas(pending: image)
        try body(&canvas)
        var data = try Encoder.encode(&canvas)
        while maxBytes > 0, data.count > maxBytes,
            let lower = lowerQuality(canvas, size: data.count, maxBytes: maxBytes)
        {
            canvas.quality = lower
            data = try Encoder.encode(&canvas)
        }
        do {
            return try DWImage(data: data, maxPixelCount: .max)
        } catch {
            throw DWWebImageError(
                .notAnImage,
                "the \(canvas.outputFormat.rawValue) encoder's output does not read back: "
                    + error.message)
        }
    }

    /// The next quality to try for a result of `size` bytes over `maxBytes`, imgproxy's steps (far over: a quarter or
    /// half the quality; near: a tenth less), never below 10; nil when the format is lossless or 10 was tried.
    private static func lowerQuality(_ canvas: Canvas, size: Int, maxBytes: Int) -> Int? {
        let format = canvas.outputFormat
        let quality = canvas.quality ?? format.defaultQuality
        guard quality > 10, format.isLossy else { return nil }
        let over = Double(size) / Double(maxBytes)
        return max(10, over > 3 ? quality / 4 : over > 1.5 ? quality / 2 : quality * 9 / 10)
    }
}

// FrameOps+ThumborTrim: thumbor's trim box (its `_bounding_box` extension), pixel for pixel.
internal import CVips
import DWImageTransform
import DWWebImage

extension FrameOps {
    /// The box thumbor's trim keeps, or nil where thumbor ignores the trim (nothing would be left). thumbor compares
    /// every pixel of an 8-bit RGB copy (RGBA when the image has alpha: the alpha counts in the distance) with the
    /// reference corner's pixel, by Euclidean distance against `trim.threshold`, and scans as its C extension does:
    /// per row, the first non-border pixel from the left sets left, top and bottom; the right edge is searched only
    /// beyond it and beyond the right edge found so far, so a row whose only non-border pixel is that first one does
    /// not move the right edge. Called on the processing thread.
    static func thumborTrimBox(_ frame: VImage, _ trim: DWTrim) throws(DWWebImageError)
        -> (x: Int, y: Int, width: Int, height: Int)?
    {
        var image =
            frame.isUChar && (frame.bands == 3 || frame.bands == 4) && frame.isSRGB
            ? frame : try Decoder.normalize(frame, autorotate: false)
        if !image.hasAlpha, image.bands == 4 {
            let source = image
            image = try Vips.make("cannot trim") { cvips_extract_band(source.pointer, 0, 3, $0) }
        }
        var length = 0
        guard let pixels = cvips_write_to_memory(image.pointer, &length) else { throw Vips.error("cannot trim") }
        defer { cvips_free(pixels) }
        let (width, height, stride) = (image.width, image.height, image.bands)
        guard width > 0, height > 0, length >= width * height * stride else { throw Vips.error("cannot trim") }
        let bytes = UnsafeRawBufferPointer(start: pixels, count: length).bindMemory(to: UInt8.self)
        let reference = trim.thumborCorner == .bottomRight ? (width * height - 1) * stride : 0
        // thumbor compares sqrt(sum) > tolerance with an int tolerance: the same as sum > tolerance² for integers.
        let tolerance = Int(min(trim.threshold, 1000).rounded(.down))  // 510 is the widest RGBA distance
        let limit = tolerance < 0 ? -1 : tolerance * tolerance
        func isContent(_ x: Int, _ y: Int) -> Bool {
            let offset = (y * width + x) * stride
            var sum = 0
            for band in 0..<stride {
                let d = Int(bytes[offset + band]) - Int(bytes[reference + band])
                sum += d * d
            }
            return sum > limit
        }
        var (left, top, right, bottom) = (width, height, 0, 0)
        for y in 0..<height {
            var x = 0
            while x < width, !isContent(x, y) { x += 1 }
            if x < width {
                (left, top, bottom) = (min(left, x), min(top, y), y)
            }
            var xi = width - 1
            while xi > max(x, right) {
                if isContent(xi, y) {
                    right = xi
                    break
                }
                xi -= 1
            }
        }
        guard right >= left, bottom >= top else { return nil }
        return (left, top, right - left + 1, bottom - top + 1)
    }
}

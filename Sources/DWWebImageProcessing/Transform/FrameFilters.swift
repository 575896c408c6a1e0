// FrameFilters: imgproxy's filters (blur, sharpen, pixelate), adjust and monochrome, and the watermark, per frame.
import CVips
import DWWebImage
import Foundation

extension FrameOps {
    static func blur(_ frame: VImage, _ sigma: Double) throws(DWWebImageError) -> VImage {
        let format = cvips_band_format(frame.pointer)  // 8 bits, or 16 for a `ph:1` frame: kept
        guard frame.hasAlpha else {
            let blurred = try Vips.make("cannot blur") { cvips_gaussblur(frame.pointer, sigma, $0) }
            return try Vips.make("cannot blur") { cvips_cast(blurred.pointer, format, $0) }
        }
        let premultiplied = try Vips.make("cannot blur") { cvips_premultiply(frame.pointer, $0) }
        let blurred = try Vips.make("cannot blur") { cvips_gaussblur(premultiplied.pointer, sigma, $0) }
        let straight = try Vips.make("cannot blur") { cvips_unpremultiply(blurred.pointer, $0) }
        return try Vips.make("cannot blur") { cvips_cast(straight.pointer, format, $0) }
    }

    static func sharpen(_ frame: VImage, _ sigma: Double) throws(DWWebImageError) -> VImage {
        let sharpened = try Vips.make("cannot sharpen") { cvips_sharpen(frame.pointer, sigma, $0) }
        let srgb = try Vips.make("cannot sharpen") { cvips_colourspace(sharpened.pointer, 22, $0) }
        return try Vips.make("cannot sharpen") { cvips_cast_uchar(srgb.pointer, $0) }
    }

    /// Blocks of `size` × `size` pixels, each the mean of its pixels, as imgproxy's `vips_apply_filters`: sides that
    /// are not a multiple of the block are first extended by mirroring the edge, so a last, partial block is the mean
    /// of its own pixels (and their mirror images), never darkened by padding.
    static func pixelate(_ frame: VImage, _ size: Int) throws(DWWebImageError) -> VImage {
        let width = frame.width, height = frame.height
        let size = min(size, max(width, height))
        guard size > 1 else { return frame }
        let paddedWidth = (width + size - 1) / size * size, paddedHeight = (height + size - 1) / size * size
        var image = frame
        if paddedWidth > width || paddedHeight > height {
            image = try Vips.make("cannot pixelate") {
                cvips_embed_mirror(frame.pointer, 0, 0, Int32(paddedWidth), Int32(paddedHeight), $0)
            }
        }
        let source = image
        let small = try Vips.make("cannot pixelate") { cvips_shrink(source.pointer, Double(size), $0) }
        let big = try Vips.make("cannot pixelate") { cvips_zoom(small.pointer, Int32(size), $0) }
        let cropped = try crop(big, x: 0, y: 0, width: width, height: height)
        let format = cvips_band_format(frame.pointer)  // 8 bits, or 16 for a `ph:1` frame: kept
        return try Vips.make("cannot pixelate") { cvips_cast(cropped.pointer, format, $0) }
    }

    /// Brightness (added), contrast (around mid-grey) and saturation (chroma multiplied, in LCh).
    static func adjust(_ frame: VImage, brightness: Int, contrast: Double, saturation: Double) throws(DWWebImageError) -> VImage {
        var image = frame
        if brightness != 0 || contrast != 1 {
            let offset = 128 * (1 - contrast) + Double(brightness)
            image = try linear(image, [contrast, contrast, contrast], [offset, offset, offset])
        }
        if saturation != 1 {
            let source = image
            let lch = try Vips.make("cannot adjust saturation") { cvips_colourspace(source.pointer, 19, $0) }
            var a = [1, saturation, 1], b = [0.0, 0, 0]
            if lch.hasAlpha {
                a.append(1)
                b.append(0)
            }
            let count = Int32(a.count)
            let scaled = try Vips.make("cannot adjust saturation") { cvips_linear(lch.pointer, &a, &b, count, $0) }
            let srgb = try Vips.make("cannot adjust saturation") { cvips_colourspace(scaled.pointer, 22, $0) }
            image = try Vips.make("cannot adjust saturation") { cvips_cast_uchar(srgb.pointer, $0) }
        }
        return image
    }

    /// Luminance mapped from black to `color`, over the original at `intensity`.
    static func monochrome(_ frame: VImage, _ mono: DWMonochrome) throws(DWWebImageError) -> VImage {
        let grey = try Vips.make("cannot make monochrome") { cvips_colourspace(frame.pointer, 26, $0) }
        let srgb = try Vips.make("cannot make monochrome") { cvips_colourspace(grey.pointer, 22, $0) }
        let eight = try Vips.make("cannot make monochrome") { cvips_cast_uchar(srgb.pointer, $0) }
        let colored = try linear(eight, [Double(mono.color.red) / 255, Double(mono.color.green) / 255,
                                         Double(mono.color.blue) / 255], [0, 0, 0])
        guard mono.intensity < 1 else { return colored }
        let opaque = colored.hasAlpha ? try Vips.make("cannot make monochrome") {
            cvips_extract_band(colored.pointer, 0, 3, $0)
        } : colored
        let overlay = try Vips.make("cannot make monochrome") {
            cvips_bandjoin_const1(opaque.pointer, 255 * mono.intensity, $0)
        }
        return try composite(frame, overlay, x: 0, y: 0)
    }

    /// `overlay` over `base` at (x, y); the result has `base`'s bands.
    static func composite(_ base: VImage, _ overlay: VImage, x: Int, y: Int) throws(DWWebImageError) -> VImage {
        let withAlpha = try addAlpha(base)
        let over = try Vips.make("cannot composite") {
            cvips_composite_over(withAlpha.pointer, overlay.pointer, Int32(x), Int32(y), $0)
        }
        let srgb = try Vips.make("cannot composite") { cvips_colourspace(over.pointer, 22, $0) }
        let eight = try Vips.make("cannot composite") { cvips_cast_uchar(srgb.pointer, $0) }
        guard !base.hasAlpha else { return eight }
        return try Vips.make("cannot composite") { cvips_extract_band(eight.pointer, 0, 3, $0) }
    }
}

// FrameFilters: imgproxy's filters (blur, sharpen, pixelate), adjust and monochrome, and the watermark, per frame.
internal import CVips
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

    /// libvips' sharpen (in LabS); a 16-bit frame's alpha is set aside and joined back, as LabS would round it to
    /// 8 bits' steps.
    static func sharpen(_ frame: VImage, _ sigma: Double) throws(DWWebImageError) -> VImage {
        guard !frame.isUChar, frame.hasAlpha else {
            let sharpened = try Vips.make("cannot sharpen") { cvips_sharpen(frame.pointer, sigma, $0) }
            return try restore(sharpened, like: frame, grey: true)
        }
        let bands = Int32(colourBands(frame))
        let colour = try Vips.make("cannot sharpen") { cvips_extract_band(frame.pointer, 0, bands, $0) }
        let alpha = try Vips.make("cannot sharpen") { cvips_extract_band(frame.pointer, bands, 1, $0) }
        let sharpened = try restore(sharpen(colour, sigma), like: frame, grey: true)
        return try Vips.make("cannot sharpen") { cvips_bandjoin2(sharpened.pointer, alpha.pointer, $0) }
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

    /// Brightness (added), contrast (around mid-grey) and saturation (chroma multiplied, in LCh). A 16-bit frame
    /// stays 16-bit (grey stays grey): the 8-bit brightness and mid-grey are scaled by 257.
    static func adjust(_ frame: VImage, brightness: Int, contrast: Double, saturation: Double) throws(DWWebImageError)
        -> VImage
    {
        var image = frame
        if brightness != 0 || contrast != 1 {
            let offset = (128 * (1 - contrast) + Double(brightness)) * depthScale(frame)
            let bands = colourBands(frame)
            image = try linear(image, Array(repeating: contrast, count: bands), Array(repeating: offset, count: bands))
        }
        if saturation != 1 {
            let source = image
            let lch = try Vips.make("cannot adjust saturation") {
                cvips_colourspace(source.pointer, VipsInterpretation.lch, $0)
            }
            var a = [1, saturation, 1], b = [0.0, 0, 0]
            if lch.hasAlpha {
                a.append(1)
                b.append(0)
            }
            let count = Int32(a.count)
            let scaled = try Vips.make("cannot adjust saturation") { cvips_linear(lch.pointer, &a, &b, count, $0) }
            image = try restore(scaled, like: frame, grey: true)
        }
        return image
    }

    /// Luminance mapped from black to `color`, over the original at `intensity` (RGB16 for a 16-bit frame).
    static func monochrome(_ frame: VImage, _ mono: DWMonochrome) throws(DWWebImageError) -> VImage {
        let grey = try Vips.make("cannot make monochrome") {
            cvips_colourspace(frame.pointer, VipsInterpretation.grey16, $0)
        }
        let rgb = try restore(grey, like: frame, grey: false)
        let colored = try linear(
            rgb,
            [
                Double(mono.color.red) / 255, Double(mono.color.green) / 255,
                Double(mono.color.blue) / 255
            ], [0, 0, 0])
        guard mono.intensity < 1 else { return colored }
        let opaque =
            colored.hasAlpha
            ? try Vips.make("cannot make monochrome") {
                cvips_extract_band(colored.pointer, 0, 3, $0)
            } : colored
        let overlay = try Vips.make("cannot make monochrome") {
            cvips_bandjoin_const1(opaque.pointer, 255 * mono.intensity * depthScale(opaque), $0)
        }
        return try composite(frame, overlay, x: 0, y: 0)
    }

    /// `overlay` (with alpha) over `base` at (x, y); the result has `base`'s alpha (or none) and depth: 8-bit sRGB,
    /// or for a 16-bit base RGB16 — grey16 when the base is and `grey` says the overlay is grey (the overlay is
    /// brought to 16 bits first, alpha included).
    static func composite(_ base: VImage, _ overlay: VImage, x: Int, y: Int, grey: Bool = false)
        throws(DWWebImageError) -> VImage
    {
        let withAlpha = try addAlpha(base)
        let top = base.isUChar || !overlay.isUChar ? overlay : try restore(overlay, like: base, grey: grey)
        let over = try Vips.make("cannot composite") {
            cvips_composite_over(withAlpha.pointer, top.pointer, Int32(x), Int32(y), $0)
        }
        let result = try restore(over, like: base, grey: grey)
        guard !base.hasAlpha else { return result }
        let bands = Int32(colourBands(result))
        return try Vips.make("cannot composite") { cvips_extract_band(result.pointer, 0, bands, $0) }
    }

    /// `image` (the result of a colour operation on `frame`) back at `frame`'s depth: 8-bit sRGB for an 8-bit frame;
    /// for a 16-bit (`ph:1`) frame 16-bit, grey16 when `frame` is grey16 and `grey` allows, else RGB16.
    static func restore(_ image: VImage, like frame: VImage, grey: Bool) throws(DWWebImageError) -> VImage {
        guard !frame.isUChar else {
            let srgb = try Vips.make("cannot convert to sRGB") {
                cvips_colourspace(image.pointer, VipsInterpretation.sRGB, $0)
            }
            return try Vips.make("cannot convert to 8 bits") { cvips_cast_uchar(srgb.pointer, $0) }
        }
        let space: Int32 = grey && isGrey(frame) ? 26 : 25
        let converted = try Vips.make("cannot convert to 16 bits") { cvips_colourspace(image.pointer, space, $0) }
        return try Vips.make("cannot convert to 16 bits") { cvips_cast(converted.pointer, VipsBandFormat.ushort, $0) }
    }
}

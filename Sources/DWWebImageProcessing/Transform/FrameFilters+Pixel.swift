// FrameFilters+Pixel: the colour filters imgproxy has no option for (DWPixelFilter, thumbor's), per frame.
import CVips
import DWWebImage

extension FrameOps {
    /// `filter` on one 8-bit frame (grey, RGB, either with alpha); runs on the processing thread.
    static func apply(_ filter: DWPixelFilter, _ frame: VImage) throws(DWWebImageError) -> VImage {
        switch filter {
        case .lumaGrayscale: try lumaGrayscale(frame)
        case .offset(let red, let green, let blue):
            colourBands(frame) == 1
                ? frame : try linear(frame, [1, 1, 1], [Double(red), Double(green), Double(blue)])
        case .equalize: try equalize(frame)
        }
    }

    /// Each colour band's histogram equalised on its own (libvips' `hist_equal`); the alpha band is kept.
    static func equalize(_ frame: VImage) throws(DWWebImageError) -> VImage {
        let bands = Int32(colourBands(frame))
        let colour = frame.hasAlpha
            ? try Vips.make("cannot equalize") { cvips_extract_band(frame.pointer, 0, bands, $0) } : frame
        let equalized = try Vips.make("cannot equalize") { cvips_hist_equal(colour.pointer, $0) }
        let result = try Vips.make("cannot equalize") { cvips_cast_uchar(equalized.pointer, $0) }
        guard frame.hasAlpha else { return result }
        let alpha = try Vips.make("cannot equalize") { cvips_extract_band(frame.pointer, bands, 1, $0) }
        return try Vips.make("cannot equalize") { cvips_bandjoin2(result.pointer, alpha.pointer, $0) }
    }

    /// Rec. 601 luma in each of the three colour bands (the frame stays RGB; the alpha band is kept), rounded as
    /// Pillow rounds it.
    static func lumaGrayscale(_ frame: VImage) throws(DWWebImageError) -> VImage {
        let bands = colourBands(frame)
        guard bands == 3 else { return frame }  // grey already
        let colour = frame.hasAlpha
            ? try Vips.make("cannot convert to grey") { cvips_extract_band(frame.pointer, 0, 3, $0) } : frame
        var matrix = [Double](repeating: 0, count: 9)
        for row in 0..<3 { (matrix[row * 3], matrix[row * 3 + 1], matrix[row * 3 + 2]) = (0.299, 0.587, 0.114) }
        let luma = try Vips.make("cannot convert to grey") { cvips_recomb(colour.pointer, &matrix, 3, 3, $0) }
        var a = [1.0], b = [0.0]
        let grey = try Vips.make("cannot convert to grey") { cvips_linear_uchar(luma.pointer, &a, &b, 1, $0) }
        guard frame.hasAlpha else { return grey }
        let alpha = try Vips.make("cannot convert to grey") { cvips_extract_band(frame.pointer, 3, 1, $0) }
        return try Vips.make("cannot convert to grey") { cvips_bandjoin2(grey.pointer, alpha.pointer, $0) }
    }
}

// FrameFilters+Pixel: the colour filters imgproxy has no option for (DWPixelFilter, thumbor's), per frame.
internal import CVips
import DWWebImage
import Foundation

extension FrameOps {
    /// `filter` on one 8-bit frame (grey, RGB, either with alpha); runs on the processing thread.
    static func apply(_ filter: DWPixelFilter, _ frame: VImage) throws(DWWebImageError) -> VImage {
        switch filter {
        case .lumaGrayscale: try lumaGrayscale(frame)
        case .offset(let red, let green, let blue):
            colourBands(frame) == 1
                ? frame : try linear(frame, [1, 1, 1], [Double(red), Double(green), Double(blue)])
        case .equalize: try equalize(frame)
        case .colorize(let r, let g, let b, let color):
            colourBands(frame) == 1
                ? frame
                : try linear(
                    frame, [r, g, b].map { Double(100 - $0) / 100 },
                    [(r, color.red), (g, color.green), (b, color.blue)].map { Double($0.0) * Double($0.1) / 100 })
        case .convolution(let matrix, let columns): try convolve(frame, matrix, columns)
        case .rotate(let degrees): try rotate(frame, degrees)
        case .letterbox(let width, let height, let adaptive, let fill):
            try letterbox(frame, box: (width, height), adaptive: adaptive, fill: fill)
        case .roundCorners(let a, let b, let color, let transparent):
            try roundCorners(frame, a, b, color, transparent)
        case .waveletSharpen, .noise, .curve: try thumborBytes(filter, frame)
        case .watermark: frame  // drawn by ImgproxySteps, which holds the plan's watermark image
        }
    }

    /// Correlation with `matrix` (every band, alpha too, as thumbor), edges extended by copying; 8 bits, clipped.
    static func convolve(_ frame: VImage, _ matrix: [Double], _ columns: Int) throws(DWWebImageError) -> VImage {
        var matrix = matrix
        let rows = Int32(matrix.count / columns)
        let result = try Vips.make("cannot convolve") { cvips_conv(frame.pointer, &matrix, Int32(columns), rows, $0) }
        return try Vips.make("cannot convolve") { cvips_cast_uchar(result.pointer, $0) }
    }

    /// Each colour band's histogram equalised on its own (libvips' `hist_equal`); the alpha band is kept.
    static func equalize(_ frame: VImage) throws(DWWebImageError) -> VImage {
        let bands = Int32(colourBands(frame))
        let colour =
            frame.hasAlpha
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
        let colour =
            frame.hasAlpha
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

extension FrameOps {
    /// The corners outside quarter ellipses painted `color` (mixed by the edge's coverage), and with `transparent`
    /// an alpha band that is 0 there. An 8-bit RGB frame, or grey (made RGB first).
    static func roundCorners(_ frame: VImage, _ a: Int, _ b: Int, _ color: DWColor, _ transparent: Bool)
        throws(DWWebImageError) -> VImage
    {
        let w = frame.width, h = frame.height
        let mask = cornerMask(width: w, height: h, a: min(a, w / 2), b: min(b, h / 2))
        let maskImage = try borrowBytes(Data(mask)) {
            (bytes: UnsafeRawBufferPointer) throws(DWWebImageError) -> VImage in
            try Vips.make("cannot make the corner mask") {
                cvips_from_memory(bytes.baseAddress!, bytes.count, Int32(w), Int32(h), 1, $0)
            }
        }
        let rgb =
            colourBands(frame) == 3
            ? frame
            : try Vips.make("cannot convert to sRGB") {
                cvips_colourspace(frame.pointer, VipsInterpretation.sRGB, $0)
            }
        let colour =
            rgb.hasAlpha ? try Vips.make("cannot split bands") { cvips_extract_band(rgb.pointer, 0, 3, $0) } : rgb
        // (pixel − colour) × coverage + colour, per band.
        let fill = [Double(color.red), Double(color.green), Double(color.blue)]
        var one = [1.0, 1, 1], minus = fill.map { -$0 }
        let shifted = try Vips.make("cannot round corners") { cvips_linear(colour.pointer, &one, &minus, 3, $0) }
        let covered = try Vips.make("cannot round corners") { cvips_multiply(shifted.pointer, maskImage.pointer, $0) }
        var scale = [1.0 / 255, 1.0 / 255, 1.0 / 255], offset = fill
        let painted = try Vips.make("cannot round corners") {
            cvips_linear_uchar(covered.pointer, &scale, &offset, 3, $0)
        }
        guard transparent || rgb.hasAlpha else { return painted }
        var alpha = maskImage
        if rgb.hasAlpha {
            let own = try Vips.make("cannot split bands") { cvips_extract_band(rgb.pointer, 3, 1, $0) }
            alpha =
                transparent
                ? try Vips.make("cannot mask alpha") { cvips_multiply(own.pointer, maskImage.pointer, $0) } : own
            if transparent {
                var s = 1.0 / 255, o = 0.0
                alpha = try Vips.make("cannot mask alpha") { cvips_linear_uchar(alpha.pointer, &s, &o, 1, $0) }
            }
        }
        return try Vips.make("cannot join bands") { cvips_bandjoin2(painted.pointer, alpha.pointer, $0) }
    }

    /// Coverage 0…255 of the rounded rectangle per pixel (4 × 4 samples a pixel in the corners).
    static func cornerMask(width: Int, height: Int, a: Int, b: Int) -> [UInt8] {
        var mask = [UInt8](repeating: 255, count: width * height)
        guard a > 0, b > 0 else { return mask }
        let (ra, rb) = (Double(a), Double(b))
        for dy in 0..<b {
            for dx in 0..<a {
                var inside = 0
                for sy in 0..<4 {
                    for sx in 0..<4 {
                        let x = (ra - (Double(dx) + (Double(sx) + 0.5) / 4)) / ra
                        let y = (rb - (Double(dy) + (Double(sy) + 0.5) / 4)) / rb
                        if x * x + y * y <= 1 { inside += 1 }
                    }
                }
                let value = UInt8(inside * 255 / 16)
                for (px, py) in [
                    (dx, dy), (width - 1 - dx, dy), (dx, height - 1 - dy), (width - 1 - dx, height - 1 - dy)
                ] {
                    mask[py * width + px] = value
                }
            }
        }
        return mask
    }
}

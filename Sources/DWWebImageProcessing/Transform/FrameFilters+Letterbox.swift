// FrameFilters+Letterbox: thumbor's fill() — the image centred on a canvas of the box, filled with a colour, the
// image's mean colour, or a blurred, stretched copy of it.
internal import CVips
import DWWebImage
import Foundation

extension FrameOps {
    /// The frame centred on a canvas of `box` as thumbor's fill filter places it (offsets rounded down).
    static func letterbox(_ frame: VImage, box: (width: Int, height: Int), adaptive: Bool, fill: DWLetterboxFill)
        throws(DWWebImageError) -> VImage
    {
        let (w, h) = (frame.width, frame.height)
        var box = box
        if adaptive, box.width > 0, box.height > 0,
            (w < h && box.width > box.height) || (w > h && box.width < box.height)
        {
            box = (box.height, box.width)
        }
        let width = box.width == 0 ? w : max(box.width, w), height = box.height == 0 ? h : max(box.height, h)
        let (x, y) = ((width - w) / 2, (height - h) / 2)
        switch fill {
        case .color(let color):
            guard width != w || height != h else { return frame }
            return try embed(frame, x: x, y: y, width: width, height: height, background: color)
        case .mean:
            guard width != w || height != h else { return frame }
            return try embed(frame, x: x, y: y, width: width, height: height, background: try meanColor(frame))
        case .blur:
            let blurred = try thumborBlur(frame, radius: 50)
            let stretched = try resize(blurred, Double(width) / Double(w), Double(height) / Double(h))
            let canvas = try crop(
                stretched, x: 0, y: 0, width: min(width, stretched.width),
                height: min(height, stretched.height))
            return try composite(canvas, frame, x: x, y: y)
        }
    }

    /// Each colour channel's mean, rounded down (thumbor's `_fill`).
    static func meanColor(_ frame: VImage) throws(DWWebImageError) -> DWColor {
        var means: [UInt8] = []
        for band in 0..<min(3, colourBands(frame)) {
            let one = try Vips.make("cannot measure") { cvips_extract_band(frame.pointer, Int32(band), 1, $0) }
            var mean = 0.0
            guard cvips_avg(one.pointer, &mean) == 0 else { throw DWWebImageError(.notAnImage, "cannot measure") }
            means.append(UInt8(max(0, min(255, mean.rounded(.down)))))
        }
        while means.count < 3 { means.append(means.first ?? 0) }
        return DWColor(red: means[0], green: means[1], blue: means[2])
    }

    /// thumbor's blur: a Gaussian of sigma `radius` cut at `radius` pixels each side, normalised, applied along
    /// the rows then the columns (edges repeat the border pixels).
    static func thumborBlur(_ frame: VImage, radius: Int) throws(DWWebImageError) -> VImage {
        let sigma = Double(radius)
        var weights = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let sum = weights.reduce(0, +)
        weights = weights.map { $0 / sum }
        let size = Int32(weights.count)
        let rows = try Vips.make("cannot blur") { cvips_conv(frame.pointer, &weights, size, 1, $0) }
        let both = try Vips.make("cannot blur") { cvips_conv(rows.pointer, &weights, 1, size, $0) }
        return try Vips.make("cannot blur") { cvips_cast_uchar(both.pointer, $0) }
    }
}

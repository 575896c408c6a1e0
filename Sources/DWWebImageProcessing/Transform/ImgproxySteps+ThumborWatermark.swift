// thumbor's watermark() step: the plan's watermark image made translucent, fitted, and drawn once or tiled.
internal import CVips
import DWImageTransform
import DWWebImage

extension ImgproxySteps {
    /// Draws the plan's watermark image over every frame as thumbor's `watermark()` does: RGBA, its alpha lowered by
    /// `255 · alpha / 100`, fitted into the ratios of the result's sides (when given), then laid over the result at
    /// the position (``DWThumborWatermark/layout(image:mark:)``), alpha-composited. A repeat is one replicated tile,
    /// so even a thousand copies are one composite. Runs on the processing thread.
    /// - Throws: 10000 when the plan carries no watermark image or it does not decode.
    mutating func drawThumborWatermark(_ spec: DWThumborWatermark) throws(DWWebImageError) {
        guard let image = watermark, let first = try Decoder.decode(image).frames.first, let base = frames.first else {
            throw DWWebImageError(.notAnImage, "the thumbor watermark image is missing or does not decode")
        }
        var mark = try FrameOps.addAlpha(FrameOps.restore(first, like: base, grey: false))
        let lowered = mark, delta = Double(255 * min(spec.alpha, 100) / 100) * FrameOps.depthScale(mark)
        var a = [1.0, 1, 1, 1], b = [0, 0, 0, -delta]
        if delta > 0 {
            mark = try Vips.make("cannot apply the watermark's alpha") {
                cvips_linear_uchar(lowered.pointer, &a, &b, 4, $0)
            }
        }
        let size = spec.size(image: (width, height), mark: (mark.width, mark.height))
        if size.width != mark.width || size.height != mark.height {
            mark = try FrameOps.resize(
                mark, Double(size.width) / Double(mark.width),
                Double(size.height) / Double(mark.height))
        }
        let (across, down) = spec.layout(image: (width, height), mark: (mark.width, mark.height))
        let apart = (across.count == 1 || across.step >= mark.width) && (down.count == 1 || down.step >= mark.height)
        if across.count * down.count > 1, apart {
            mark = try Self.tile(mark, across: across, down: down)
        } else if across.count * down.count > 1 {  // overlapping copies (a capped grid, at most 12): one by one
            let overlay = mark
            for i in 0..<across.count {
                for j in 0..<down.count {
                    let x = across.start + i * across.step, y = down.start + j * down.step
                    try map { f throws(DWWebImageError) in try FrameOps.composite(f, overlay, x: x, y: y) }
                }
            }
            return
        }
        guard across.count > 0, down.count > 0 else { return }
        let overlay = mark
        try map { f throws(DWWebImageError) in try FrameOps.composite(f, overlay, x: across.start, y: down.start) }
    }

    /// `mark` on a transparent cell of the steps' size, the cell repeated `count` times along each axis.
    private static func tile(_ mark: VImage, across: DWThumborWatermark.Axis, down: DWThumborWatermark.Axis)
        throws(DWWebImageError) -> VImage
    {
        let cellWidth = across.count > 1 ? across.step : mark.width
        let cellHeight = down.count > 1 ? down.step : mark.height
        let cell = try FrameOps.embed(mark, x: 0, y: 0, width: cellWidth, height: cellHeight, background: nil)
        return try Vips.make("cannot tile the watermark") {
            cvips_replicate(cell.pointer, Int32(across.count), Int32(down.count), $0)
        }
    }
}

// The watermark step: the configured image, scaled, made translucent and drawn at its position (or tiled).
internal import CVips
import DWWebImage
import Foundation

extension ImgproxySteps {
    /// Draws `image` over every frame: fitted (and enlarged) into `placement.scale` × the frame's width **and**
    /// height when the scale is set (imgproxy's `prepareWatermark`),
    /// alpha multiplied by the opacity, at the position (offsets × DPR), or tiled over the whole frame for `re`.
    mutating func drawWatermark(_ image: DWImage, _ placement: DWWatermarkPlacement, dpr: Double)
        throws(DWWebImageError)
    {
        guard let first = try Decoder.decode(image).frames.first else { return }
        let grey = frames.contains { !$0.isUChar } && Self.isGrey(image)  // only a 16-bit frame can stay grey
        var mark = try FrameOps.addAlpha(first)
        if placement.scale > 0 {
            let boxWidth = max(ImgproxyGeometry.scaleToEven(width, placement.scale), 1)
            let boxHeight = max(ImgproxyGeometry.scaleToEven(height, placement.scale), 1)
            let factor = min(Double(boxWidth) / Double(mark.width), Double(boxHeight) / Double(mark.height))
            mark = try FrameOps.resize(mark, factor, factor)
        } else if dpr != 1 {
            mark = try FrameOps.resize(mark, dpr, dpr)
        }
        let opacity = placement.opacity, source = mark
        var a = [1, 1, 1, opacity], b = [0.0, 0, 0, 0]
        mark = try Vips.make("cannot apply opacity") { cvips_linear_uchar(source.pointer, &a, &b, 4, $0) }
        let frameWidth = width, frameHeight = height
        if placement.position.kind == .replicate {
            let tile = mark
            let across = Int32((frameWidth + tile.width - 1) / tile.width),
                down = Int32((frameHeight + tile.height - 1) / tile.height)
            let tiled = try Vips.make("cannot tile the watermark") { cvips_replicate(tile.pointer, across, down, $0) }
            let cut = try FrameOps.crop(tiled, x: 0, y: 0, width: frameWidth, height: frameHeight)
            try map { f throws(DWWebImageError) in try FrameOps.composite(f, cut, x: 0, y: 0, grey: grey) }
            return
        }
        let overlay = mark
        let (x, y) = ImgproxyGeometry.position(
            outer: (frameWidth, frameHeight),
            inner: (
                min(overlay.width, frameWidth),
                min(overlay.height, frameHeight)
            ), gravity: placement.position, dpr: dpr)
        try map { f throws(DWWebImageError) in try FrameOps.composite(f, overlay, x: x, y: y, grey: grey) }
    }

    /// A grey watermark (libvips reads it as B_W or grey16): over a grey16 frame it keeps the frame grey, as imgproxy's
    /// `vips_apply_watermark` does.
    static func isGrey(_ image: DWImage) -> Bool {
        guard Decoder.vipsLoader(for: image.format) != nil,
            let opened = try? Decoder.open(image.data, format: image.format)
        else { return false }
        return [1, 26].contains(cvips_interpretation(opened.pointer))
    }
}

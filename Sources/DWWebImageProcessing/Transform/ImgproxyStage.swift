// ImgproxyStage: a DWTransform's geometry and pixel steps, in imgproxy's processing order, on every frame.
internal import CVips
import DWWebImage
import Foundation

/// Applies a ``DWTransform``'s geometry and pixel steps as imgproxy does, in its order: trim, crop, scale (sizes
/// computed on the image as shown: EXIF orientation and `rot` applied), rotate and flip, the fill crop at the
/// gravity, filters (blur, sharpen, pixelate, adjust, monochrome), extend, extend-aspect-ratio, padding, background,
/// watermark. Every frame of an animation gets the same steps, as imgproxy's per-frame pipeline: a smart gravity
/// crops each frame on its own, and trim is skipped. An animation whose output format (the canvas's, set before this
/// step) cannot animate is its first frame from the start (imgproxy then loads one frame), so trim and the rest treat
/// it as a still image. A step of ``DWVariantPlan``; runs on the caller's thread; a plain value.
struct ImgproxyStage: CanvasStep {
    /// The steps (its encoding fields are not used here).
    let transform: DWTransform
    /// The watermark image for ``DWTransform/watermark``.
    let watermark: DWImage?

    func apply(to canvas: inout Canvas) throws(DWWebImageError) {
        if let source = canvas.source, source.format == .svg { return try applySVG(source, to: &canvas) }
        let orientation = try canvas.source.map(Self.orientation(of:)) ?? 1
        let preset = try scaleOnLoad(&canvas, orientation: orientation)
        try canvas.decode()
        if transform.maxAnimationFrames > 0 && canvas.frames.count > transform.maxAnimationFrames {
            canvas.frames.removeLast(canvas.frames.count - transform.maxAnimationFrames)
            if canvas.delays.count > canvas.frames.count {
                canvas.delays.removeLast(canvas.delays.count - canvas.frames.count)
            }
        }
        if canvas.frames.count > 1 && !canvas.outputFormat.savesAnimation {
            (canvas.frames, canvas.delays) = ([canvas.frames[0]], [])
        }
        var steps = ImgproxySteps(transform: transform, animated: canvas.frames.count > 1, watermark: watermark)
        steps.preset = preset
        try finish(&canvas, steps: &steps, orientation: orientation)
    }

    /// imgproxy's scale-on-load for a JPEG source: when the geometry shrinks the upright image by 2 or more, the
    /// JPEG is decoded at the largest DCT scale (2, 4 or 8) it still shrinks past, and the geometry and the crop's
    /// gravity are adjusted to the decoded pixels (as for an SVG). Not with a trim (it measures the image at full
    /// size) or a focal point (given in source pixels). Returns the adjusted geometry, or nil to decode at full size.
    private func scaleOnLoad(_ canvas: inout Canvas, orientation: Int) throws(DWWebImageError)
        -> (geometry: ImgproxyGeometry, cropGravity: DWGravity)?
    {
        guard let source = canvas.source, source.format == .jpeg, transform.trim == nil, transform.focalPoint == nil
        else { return nil }
        let quarterTurn = (5...8).contains(orientation)
        let rotated = transform.rotate % 180 != 0
        // The geometry's input: the image after the orientation (when applied) and the rotation.
        func geometrySize(_ size: (Int, Int), upright: Bool) -> (width: Int, height: Int) {
            let swaps = (quarterTurn && (upright != transform.autoRotate)) != rotated
            return swaps ? (size.1, size.0) : (size.0, size.1)
        }
        let full = geometrySize((source.pixelWidth, source.pixelHeight), upright: false)
        var geometry = ImgproxyGeometry(width: full.width, height: full.height, transform: transform)
        let preshrink = 1 / geometry.loadScale(width: full.width, height: full.height)
        guard let shrink = [8, 4, 2].first(where: { preshrink >= Double($0) }) else { return nil }
        canvas.jpegShrink = shrink
        try canvas.decode()  // upright: the decoder applies the orientation
        var gravity = transform.cropGravity ?? transform.gravity
        geometry.loaded(
            from: full.width, full.height, to: geometrySize((canvas.width, canvas.height), upright: true),
            gravity: &gravity)
        return (geometry, gravity)
    }

    /// An SVG as imgproxy processes one: the sizes computed on its intrinsic size with the vector rules (no
    /// `enlarge` needed; scaled down to the pixel limit when not enlarging), then rendered once at the scale they
    /// need (its scale-on-load: the vector is scaled, not a raster resized), the remaining steps on those pixels.
    /// With `trim` it renders at its intrinsic size first (imgproxy trims before it could scale on load). Either way
    /// the size it renders at is checked against the pixel limit first.
    private func applySVG(_ image: DWImage, to canvas: inout Canvas) throws(DWWebImageError) {
        let prepared = try SVGRaster.prepare(image)  // SVGGuard's checks, and the size from the document
        let intrinsic = (width: prepared.width, height: prepared.height)
        let limits = DWImageProcessing.effectiveLimits
        let turned = transform.rotate % 180 != 0
        let (width, height) = turned ? (intrinsic.height, intrinsic.width) : intrinsic
        var steps = ImgproxySteps(transform: transform, animated: false, watermark: watermark)
        steps.vector = ImgproxyGeometry.Vector(maxPixels: limits.vectorPixelCap)
        var geometry = ImgproxyGeometry(width: width, height: height, transform: transform, vector: steps.vector)
        let scale = geometry.loadScale(width: width, height: height)
        let rendered = try SVGRaster.render(prepared, scale: transform.trim == nil ? scale : 1)
        (canvas.frames, canvas.source) = (rendered.frames, nil)
        canvas.keepAlive.append(contentsOf: rendered.keepAlive)
        if transform.trim == nil, scale != 1 {
            let loaded = turned ? (canvas.height, canvas.width) : (canvas.width, canvas.height)
            var gravity = transform.cropGravity ?? transform.gravity
            geometry.loaded(from: width, height, to: loaded, gravity: &gravity)
            steps.preset = (geometry, gravity)
        }
        try finish(&canvas, steps: &steps, orientation: 1)
    }

    /// The steps over the decoded canvas, then the background.
    private func finish(_ canvas: inout Canvas, steps: inout ImgproxySteps, orientation: Int) throws(DWWebImageError) {
        canvas.frames = try steps.run(canvas.frames, orientation: orientation)
        if let color = transform.background {  // without one, the encoder flattens onto white where it must
            try canvas.mapFrames { frame throws(DWWebImageError) in try FrameOps.flatten(frame, color) }
        }
    }

    /// The EXIF orientation of a source libvips reads (1 for the others: our decoders apply none).
    static func orientation(of image: DWImage) throws(DWWebImageError) -> Int {
        guard Decoder.vipsLoader(for: image.format) != nil else { return 1 }
        return try Decoder.open(image.data, format: image.format).int("orientation") ?? 1
    }
}

// DWImgproxyProcessor: a DWTransform's geometry and pixel steps, in imgproxy's processing order, on every frame.
import CVips
import DWWebImage
import Foundation

/// Applies a ``DWTransform``'s geometry and pixel steps as imgproxy does, in its order: trim, crop, scale (sizes
/// computed on the image as shown: EXIF orientation and `rot` applied), rotate and flip, the fill crop at the
/// gravity, filters (blur, sharpen, pixelate, adjust, monochrome), extend, extend-aspect-ratio, padding, background,
/// watermark. Every frame of an animation gets the same steps, as imgproxy's per-frame pipeline: a smart gravity
/// crops each frame on its own, and trim is skipped. An animation whose output format cannot animate is its first
/// frame from the start (imgproxy then loads one frame), so trim and the rest treat it as a still image.
/// The encoding (format, quality) is the chain's next processor; ``outputFormat`` is the format it asks for.
///
/// Made by `DWTransform.processors(watermark:)`; `process(_:)` runs on the caller's thread; a plain value.
public struct DWImgproxyProcessor: DWImageProcessor {
    /// The steps (its encoding fields are not used here).
    public let transform: DWTransform
    /// The watermark image for ``DWTransform/watermark``, and a digest of its bytes for the identifier.
    let watermark: DWImage?
    let watermarkDigest: String
    /// The format the chain encodes in (nil: the source's own); not in the identifier, the encoding step's has it.
    let outputFormat: DWImageFormat?

    init(transform: DWTransform, watermark: DWImage?, watermarkDigest: String, outputFormat: DWImageFormat?) {
        self.transform = transform
        self.watermark = watermark
        self.watermarkDigest = watermarkDigest
        self.outputFormat = outputFormat
    }

    /// `imgproxy(<the transform's identifier>[,wm=<digest>])`.
    public var identifier: String {
        "imgproxy(\(transform.identifier)\(transform.watermark == nil ? "" : ",wm=\(watermarkDigest)"))"
    }

    public func process(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        if image.format == .svg { return try processSVG(image) }
        let orientation = try Self.orientation(of: image)
        return try Engine.process(image) { canvas throws(DWWebImageError) in
            try canvas.decode()
            if transform.maxAnimationFrames > 0 && canvas.frames.count > transform.maxAnimationFrames {
                canvas.frames.removeLast(canvas.frames.count - transform.maxAnimationFrames)
                if canvas.delays.count > canvas.frames.count { canvas.delays.removeLast(canvas.delays.count - canvas.frames.count) }
            }
            if canvas.frames.count > 1 && !Encoder.keepsFrames(outputFormat ?? canvas.outputFormat) {
                (canvas.frames, canvas.delays) = ([canvas.frames[0]], [])
            }
            var steps = ImgproxySteps(transform: transform, animated: canvas.frames.count > 1, watermark: watermark)
            try finish(&canvas, steps: &steps, orientation: orientation)
        }
    }

    /// An SVG as imgproxy processes one: the sizes computed on its intrinsic size with the vector rules (no
    /// `enlarge` needed; scaled down to the pixel limit when not enlarging), then rendered once at the scale they
    /// need (its scale-on-load: the vector is scaled, not a raster resized), the remaining steps on those pixels.
    /// With `trim` it renders at its intrinsic size first (imgproxy trims before it could scale on load). Either way
    /// the size it renders at is checked against the pixel limit first.
    private func processSVG(_ image: DWImage) throws(DWWebImageError) -> DWImage {
        let prepared = try SVGRaster.prepare(image)  // SVGGuard's checks, and the size from the document
        let intrinsic = (width: prepared.width, height: prepared.height)
        let limits = DWImageProcessing.effectiveLimits
        return try Engine.process(image) { canvas throws(DWWebImageError) in
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
    }

    /// The steps over the decoded canvas, then the background.
    private func finish(_ canvas: inout Canvas, steps: inout ImgproxySteps, orientation: Int) throws(DWWebImageError) {
        canvas.frames = try steps.run(canvas.frames, orientation: orientation)
        canvas.isMaterialized = false
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

// ImgproxySteps: the order of imgproxy's pipeline over a list of frames (all the same size).
import DWWebImage
import Foundation

/// One run of imgproxy's main pipeline over `frames`. Decoded frames are already upright (our decoders apply the
/// EXIF orientation), so `rot`/`fl` come first, and a crop with the gravity as given then lands where imgproxy's
/// crop-before-rotate with a rotated gravity lands. Runs on the processing thread.
struct ImgproxySteps {
    let transform: DWTransform
    let animated: Bool
    let watermark: DWImage?
    /// An SVG source: imgproxy's vector rules apply to the geometry (see ``ImgproxyGeometry/Vector``).
    var vector: ImgproxyGeometry.Vector?
    /// An SVG rendered at the scale the request needs: the geometry computed on its intrinsic size and adjusted to
    /// the rendered pixels, and the crop's gravity with its pixel offsets scaled alike (imgproxy's scale-on-load).
    var preset: (geometry: ImgproxyGeometry, cropGravity: DWGravity)?
    private(set) var frames: [VImage] = []

    init(transform: DWTransform, animated: Bool, watermark: DWImage?) {
        self.transform = transform
        self.animated = animated
        self.watermark = watermark
    }

    mutating func map(_ body: (VImage) throws(DWWebImageError) -> VImage) throws(DWWebImageError) {
        var result: [VImage] = []
        result.reserveCapacity(frames.count)
        for frame in frames { result.append(try body(frame)) }
        frames = result
    }

    var width: Int { frames.first?.width ?? 0 }
    var height: Int { frames.first?.height ?? 0 }

    /// The frames after every step. `orientation` is the source's EXIF orientation: the frames come upright, and
    /// are turned back as stored for `ar:0`, and for the trim (imgproxy trims the image as stored, before any
    /// rotation: the corner it samples and the sides `equal_hor`/`equal_ver` balance are the stored image's).
    mutating func run(_ input: [VImage], orientation: Int) throws(DWWebImageError) -> [VImage] {
        frames = input
        let t = transform
        // thumbor trims the image as it will be served (upright only where it applies the orientation).
        let turned = orientation != 1 && (!t.autoRotate || (t.trim != nil && t.trim?.thumborCorner == nil))
        if turned { try map { f throws(DWWebImageError) in try Self.undo(orientation: orientation, f) } }
        // imgproxy: "Trim is not supported for animated images"
        if let trim = t.trim, !animated, let first = frames.first,
            let box = trim.thumborCorner == nil
                ? try FrameOps.trimBox(first, trim) : try FrameOps.thumborTrimBox(first, trim)
        {
            try map { f throws(DWWebImageError) in
                try FrameOps.crop(f, x: box.x, y: box.y, width: box.width, height: box.height)
            }
        }
        if turned && t.autoRotate {
            try map { f throws(DWWebImageError) in try Self.apply(orientation: orientation, f) }
        }
        try map { f throws(DWWebImageError) in
            try FrameOps.flip(FrameOps.rotate(f, t.rotate), horizontal: t.flipHorizontal, vertical: t.flipVertical)
        }
        let geometry = preset?.geometry ?? ImgproxyGeometry(width: width, height: height, transform: t, vector: vector)
        // A focal point in source pixels is the same fraction of the scaled image (no manual crop with it).
        let gravity = t.focalPoint.map { DWGravity(.focusPoint, x: $0.x / Double(width), y: $0.y / Double(height)) }
        try crop(
            width: geometry.cropWidth, height: geometry.cropHeight,
            gravity: preset?.cropGravity ?? t.cropGravity ?? t.gravity, dpr: 1)
        if geometry.wScale != 1 || geometry.hScale != 1 {
            try map { f throws(DWWebImageError) in try FrameOps.resize(f, geometry.wScale, geometry.hScale) }
        }
        try crop(
            width: geometry.resultCropWidth, height: geometry.resultCropHeight, gravity: gravity ?? t.gravity,
            dpr: geometry.dprScale)
        try filters()
        if let extend = t.extend {
            try self.extend(to: geometry.targetWidth, geometry.targetHeight, extend.gravity, geometry.dprScale)
        }
        if let exar = t.extendAspectRatio, geometry.extendAspectRatioWidth > 0, geometry.extendAspectRatioHeight > 0 {
            try self.extend(
                to: geometry.extendAspectRatioWidth, geometry.extendAspectRatioHeight, exar.gravity,
                geometry.dprScale)
        }
        if !t.padding.isEmpty { try pad(geometry.dprScale) }
        if let placement = t.watermark, let watermark {
            try drawWatermark(watermark, placement, dpr: geometry.dprScale)
        }
        return frames
    }

    private mutating func crop(width cropWidth: Int, height cropHeight: Int, gravity: DWGravity, dpr: Double)
        throws(DWWebImageError)
    {
        guard cropWidth != 0 || cropHeight != 0 else { return }
        let w = ImgproxyGeometry.minNonZero(cropWidth, width), h = ImgproxyGeometry.minNonZero(cropHeight, height)
        guard w < width || h < height else { return }
        if gravity.kind == .smart {  // each frame of an animation on its own, as imgproxy runs its pipeline per frame
            try map { f throws(DWWebImageError) in try FrameOps.smartCrop(f, width: w, height: h) }
            return
        }
        let (x, y) = ImgproxyGeometry.position(outer: (width, height), inner: (w, h), gravity: gravity, dpr: dpr)
        try map { f throws(DWWebImageError) in try FrameOps.crop(f, x: x, y: y, width: w, height: h) }
    }

    private mutating func filters() throws(DWWebImageError) {
        let t = transform
        if t.blur > 0 { try map { f throws(DWWebImageError) in try FrameOps.blur(f, t.blur) } }
        if t.sharpen > 0 { try map { f throws(DWWebImageError) in try FrameOps.sharpen(f, t.sharpen) } }
        if t.pixelate > 1 { try map { f throws(DWWebImageError) in try FrameOps.pixelate(f, t.pixelate) } }
        if t.brightness != 0 || t.contrast != 1 || t.saturation != 1 {
            try map { f throws(DWWebImageError) in
                try FrameOps.adjust(f, brightness: t.brightness, contrast: t.contrast, saturation: t.saturation)
            }
        }
        if let mono = t.monochrome { try map { f throws(DWWebImageError) in try FrameOps.monochrome(f, mono) } }
        for filter in t.pixelFilters {
            if case .watermark(let spec) = filter { try drawThumborWatermark(spec); continue }  // needs the image
            try map { f throws(DWWebImageError) in try FrameOps.apply(filter, f) }
        }
    }

    private mutating func extend(to targetWidth: Int, _ targetHeight: Int, _ gravity: DWGravity, _ dpr: Double)
        throws(DWWebImageError)
    {
        guard targetWidth > width || targetHeight > height else { return }
        let w = max(targetWidth, width), h = max(targetHeight, height)
        let (x, y) = ImgproxyGeometry.position(outer: (w, h), inner: (width, height), gravity: gravity, dpr: dpr)
        let background = transform.background
        try map { f throws(DWWebImageError) in
            try FrameOps.embed(f, x: x, y: y, width: w, height: h, background: background)
        }
    }

    private mutating func pad(_ dpr: Double) throws(DWWebImageError) {
        let p = transform.padding
        let top = ImgproxyGeometry.scaleToEven(p.top, dpr), right = ImgproxyGeometry.scaleToEven(p.right, dpr)
        let bottom = ImgproxyGeometry.scaleToEven(p.bottom, dpr), left = ImgproxyGeometry.scaleToEven(p.left, dpr)
        let w = width + left + right, h = height + top + bottom, background = transform.background
        try map { f throws(DWWebImageError) in
            try FrameOps.embed(f, x: left, y: top, width: w, height: h, background: background)
        }
    }

    /// imgproxy's angle and horizontal flip for EXIF orientation `o` (rotate first, then flip).
    private static func turn(_ o: Int) -> (angle: Int, flipped: Bool) {
        ([3: 180, 4: 180, 5: 90, 6: 90, 7: 270, 8: 270][o] ?? 0, [2, 4, 5, 7].contains(o))
    }

    /// EXIF orientation `o` as stored: the inverse of rotate-then-flip.
    static func undo(orientation o: Int, _ frame: VImage) throws(DWWebImageError) -> VImage {
        let (angle, flipped) = turn(o)
        return try FrameOps.rotate(FrameOps.flip(frame, horizontal: flipped, vertical: false), 360 - angle)
    }

    /// A stored frame turned upright by EXIF orientation `o` (what the decoder's autorotation does).
    static func apply(orientation o: Int, _ frame: VImage) throws(DWWebImageError) -> VImage {
        let (angle, flipped) = turn(o)
        return try FrameOps.flip(FrameOps.rotate(frame, angle), horizontal: flipped, vertical: false)
    }
}

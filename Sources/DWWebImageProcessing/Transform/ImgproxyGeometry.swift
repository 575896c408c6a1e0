// ImgproxyGeometry: imgproxy's size arithmetic (its processing/prepare.go), in plain integers and doubles.
import DWWebImage
import Foundation

/// The scales and sizes of one request over one source, computed as imgproxy computes them: on the image as it
/// will be shown (EXIF orientation and `rot` applied), after the crop.
struct ImgproxyGeometry: Equatable {
    var wScale = 1.0, hScale = 1.0, dprScale = 1.0
    var cropWidth = 0, cropHeight = 0
    var targetWidth = 0, targetHeight = 0
    var scaledWidth = 0, scaledHeight = 0
    var resultCropWidth = 0, resultCropHeight = 0
    var extendAspectRatioWidth = 0, extendAspectRatioHeight = 0

    /// A vector source (SVG): imgproxy scales it to any size without `enlarge`, and, not enlarging, scales it down
    /// so that what it renders stays within `maxPixels` (its prepare.go, for sources whose size no download check saw).
    struct Vector: Equatable {
        /// The most pixels a render may have when not enlarged (``DWProcessingLimits/vectorPixelCap``).
        var maxPixels: Int
    }

    /// `width` × `height`: the upright source (after trim). `vector`: the source is an SVG.
    init(width: Int, height: Int, transform original: DWTransform, vector: Vector? = nil) {
        cropWidth = Self.cropSize(width, original.cropWidth)
        cropHeight = Self.cropSize(height, original.cropHeight)
        let widthToScale = Self.minNonZero(cropWidth, width)
        let heightToScale = Self.minNonZero(cropHeight, height)
        let t = Self.adapted(original, widthToScale, heightToScale)
        calcScale(widthToScale, heightToScale, t, isVector: vector != nil)
        if let vector, !t.enlarge { capVector(width, height, vector.maxPixels) }
        calcSizes(widthToScale, heightToScale, t)
        limitScale(widthToScale, heightToScale, t)
    }

    /// thumbor's adaptive box (``DWTransform/adaptiveBox``): the sides swapped when a `width` × `height` source
    /// leans the other way than the box.
    static func adapted(_ t: DWTransform, _ width: Int, _ height: Int) -> DWTransform {
        guard t.adaptiveBox, t.width > 0, t.height > 0,
            (width < height && t.width > t.height) || (width > height && t.width < t.height)
        else { return t }
        var swapped = t
        (swapped.width, swapped.height) = (t.height, t.width)
        return swapped
    }

    /// A vector whose render (`width` × `height` at the scales) would be over `maxPixels` is scaled down to it, as
    /// imgproxy's prepare.go does; where rounding the sides would still pass it by a few pixels, a hair further.
    private mutating func capVector(_ width: Int, _ height: Int, _ maxPixels: Int) {
        let resolution = (Double(width) * Double(height) * wScale * hScale).rounded()
        guard resolution > Double(maxPixels) else { return }
        let down = (Double(maxPixels) / resolution).squareRoot()
        wScale *= down
        hScale *= down
        for _ in 0..<16 where Self.scale(width, wScale) * Self.scale(height, hScale) > maxPixels {
            wScale *= 0.9995
            hScale *= 0.9995
        }
    }

    /// The result's size before its padding: the scaled image cut to the result crop, then grown by extend or
    /// extend aspect ratio (imgproxy's limitScale arithmetic; the pipeline's steps give the same).
    func unpaddedSize(_ t: DWTransform) -> (width: Int, height: Int) {
        var width = Self.minNonZero(scaledWidth, resultCropWidth),
            height = Self.minNonZero(scaledHeight, resultCropHeight)
        if t.extend != nil {
            (width, height) = (max(width, targetWidth), max(height, targetHeight))
        } else if t.extendAspectRatio != nil {
            (width, height) = (max(width, extendAspectRatioWidth), max(height, extendAspectRatioHeight))
        }
        return (width, height)
    }

    /// The result's size: ``unpaddedSize(_:)`` plus the padding at the DPR.
    func outputSize(_ t: DWTransform) -> (width: Int, height: Int) {
        let (width, height) = unpaddedSize(t), p = t.padding
        return (
            width + Self.scaleToEven(p.left, dprScale) + Self.scaleToEven(p.right, dprScale),
            height + Self.scaleToEven(p.top, dprScale) + Self.scaleToEven(p.bottom, dprScale)
        )
    }

    /// imgproxy's `max_result_dimension`: a result wider or taller than it is scaled down to fit (never below one
    /// pixel of the source), the DPR with it, and the sizes computed again.
    private mutating func limitScale(_ width: Int, _ height: Int, _ t: DWTransform) {
        guard t.maxResultDimension > 0 else { return }
        let (outWidth, outHeight) = outputSize(t)
        guard outWidth > t.maxResultDimension || outHeight > t.maxResultDimension else { return }
        let downScale = Double(t.maxResultDimension) / Double(max(outWidth, outHeight))
        wScale = max(wScale * downScale, 1 / Double(width))
        hScale = max(hScale * downScale, 1 / Double(height))
        dprScale *= downScale
        calcSizes(width, height, t)
    }

    /// imgproxy's scale-on-load for a vector source of `width` × `height` (upright): the scale to render it at
    /// (1 / the smaller of the two shrinks), so the resize after it is nearly nothing.
    func loadScale(width: Int, height: Int) -> Double {
        let wShrink = Double(width) / Double(max(1, Self.scale(width, wScale)))
        let hShrink = Double(height) / Double(max(1, Self.scale(height, hScale)))
        return 1 / min(wShrink, hShrink)
    }

    /// The geometry once the source of `width` × `height` was rendered at `loaded` (upright) instead: the remaining
    /// scales (1 when they would not change a side), the crop in the rendered pixels, and `gravity`'s pixel offsets
    /// scaled too (imgproxy's scaleOnLoad).
    mutating func loaded(
        from width: Int, _ height: Int, to loaded: (width: Int, height: Int),
        gravity: inout DWGravity
    ) {
        let wPreshrink = Double(width) / Double(loaded.width), hPreshrink = Double(height) / Double(loaded.height)
        wScale *= wPreshrink
        if loaded.width == Self.scale(loaded.width, wScale) { wScale = 1 }
        hScale *= hPreshrink
        if loaded.height == Self.scale(loaded.height, hScale) { hScale = 1 }
        if cropWidth > 0 { cropWidth = max(1, Int((Double(cropWidth) / wPreshrink).rounded())) }
        if cropHeight > 0 { cropHeight = max(1, Int((Double(cropHeight) / hPreshrink).rounded())) }
        if gravity.kind != .focusPoint {
            if abs(gravity.x) >= 1 { gravity.x = (gravity.x / wPreshrink).rounded(.toNearestOrEven) }
            if abs(gravity.y) >= 1 { gravity.y = (gravity.y / hPreshrink).rounded(.toNearestOrEven) }
        }
    }

    static func cropSize(_ original: Int, _ crop: Double) -> Int {
        if crop == 0 { return 0 }
        if crop >= 1 { return Int(crop) }
        return max(1, scale(original, crop))
    }

    private mutating func calcScale(_ width: Int, _ height: Int, _ t: DWTransform, isVector: Bool) {
        var wShrink = 1.0, hShrink = 1.0
        let srcW = Double(width), srcH = Double(height)
        let dstW = t.width != 0 ? Double(t.width) : srcW
        let dstH = t.height != 0 ? Double(t.height) : srcH
        if dstW != srcW { wShrink = srcW / dstW }
        if dstH != srcH { hShrink = srcH / dstH }
        if wShrink != 1 || hShrink != 1 {
            let type = Self.resolved(t.resizingType, srcW - srcH, dstW - dstH)
            if t.width == 0 && type != .force {
                wShrink = hShrink
            } else if t.height == 0 && type != .force {
                hShrink = wShrink
            } else if type == .fit {
                wShrink = max(wShrink, hShrink)
                hShrink = wShrink
            } else if type == .fill || type == .fillDown {
                wShrink = min(wShrink, hShrink)
                hShrink = wShrink
            }
        }
        wShrink /= t.zoomX
        hShrink /= t.zoomY
        dprScale = t.dpr
        if !t.enlarge && !isVector {
            let minShrink = min(wShrink, hShrink)
            if minShrink < 1 {
                wShrink /= minShrink
                hShrink /= minShrink
                if t.extend == nil { dprScale /= minShrink }
            }
            dprScale = min(dprScale, min(wShrink, hShrink))
        }
        if t.minWidth > 0, srcW / Double(t.minWidth) < wShrink {
            let minShrink = srcW / Double(t.minWidth)
            hShrink /= wShrink / minShrink
            wShrink = minShrink
        }
        if t.minHeight > 0, srcH / Double(t.minHeight) < hShrink {
            let minShrink = srcH / Double(t.minHeight)
            wShrink /= hShrink / minShrink
            hShrink = minShrink
        }
        wShrink /= dprScale
        hShrink /= dprScale
        wShrink = min(wShrink, srcW)
        hShrink = min(hShrink, srcH)
        wScale = 1 / wShrink
        hScale = 1 / hShrink
    }

    /// `auto` becomes fill when source and box lean the same way, fit otherwise.
    static func resolved(_ type: DWResizeMode, _ sourceLean: Double, _ boxLean: Double) -> DWResizeMode {
        guard type == .auto else { return type }
        return (sourceLean >= 0 && boxLean >= 0) || (sourceLean < 0 && boxLean < 0) ? .fill : .fit
    }

    private mutating func calcSizes(_ width: Int, _ height: Int, _ t: DWTransform) {
        targetWidth = Self.scale(t.width, dprScale * t.zoomX)
        targetHeight = Self.scale(t.height, dprScale * t.zoomY)
        scaledWidth = Self.scale(width, wScale)
        scaledHeight = Self.scale(height, hScale)
        resultCropWidth = targetWidth
        resultCropHeight = targetHeight
        if t.coverUncropped { (resultCropWidth, resultCropHeight) = (0, 0) }  // thumbor's full-fit-in
        if t.resizingType == .fillDown && !t.enlarge {
            let diffW = Double(targetWidth) / Double(scaledWidth), diffH = Double(targetHeight) / Double(scaledHeight)
            if diffW > diffH && diffW > 1 {
                resultCropHeight = Self.scale(scaledWidth, Double(targetHeight) / Double(targetWidth))
                resultCropWidth = scaledWidth
            } else if diffH > diffW && diffH > 1 {
                resultCropWidth = Self.scale(scaledHeight, Double(targetWidth) / Double(targetHeight))
                resultCropHeight = scaledHeight
            }
        }
        if t.extendAspectRatio != nil && targetWidth > 0 && targetHeight > 0 {
            let outW = Self.minNonZero(scaledWidth, resultCropWidth),
                outH = Self.minNonZero(scaledHeight, resultCropHeight)
            let diffW = Double(targetWidth) / Double(outW), diffH = Double(targetHeight) / Double(outH)
            if diffH > diffW {
                extendAspectRatioHeight = Self.scale(outW, Double(targetHeight) / Double(targetWidth))
                extendAspectRatioWidth = outW
            } else if diffW > diffH {
                extendAspectRatioWidth = Self.scale(outH, Double(targetWidth) / Double(targetHeight))
                extendAspectRatioHeight = outH
            }
        }
    }

    // MARK: imgproxy's imath

    static func minNonZero(_ a: Int, _ b: Int) -> Int { a == 0 ? b : b == 0 ? a : min(a, b) }
    static func scale(_ a: Int, _ factor: Double) -> Int { a == 0 ? 0 : saturated((Double(a) * factor).rounded()) }
    static func scaleToEven(_ a: Int, _ factor: Double) -> Int {
        a == 0 ? 0 : saturated((Double(a) * factor).rounded(.toNearestOrEven))
    }
    static func roundToEven(_ a: Double) -> Int { saturated(a.rounded(.toNearestOrEven)) }

    /// A size as an Int, held within ±Int32.max: URLs have no bounds of their own (as imgproxy's), so a product of
    /// a huge width, DPR and zoom stays a number the result limits refuse, never a trap.
    static func saturated(_ value: Double) -> Int {
        value.isNaN ? 0 : Int(max(-Double(Int32.max), min(value, Double(Int32.max))))
    }

    /// Where an inner box sits in an outer one for `gravity` (imgproxy's calcPosition, no overflow).
    static func position(outer: (Int, Int), inner: (Int, Int), gravity: DWGravity, dpr: Double) -> (x: Int, y: Int) {
        let (width, height) = outer, (innerWidth, innerHeight) = inner
        var left: Int, top: Int
        if gravity.kind == .focusPoint {
            left = scaleToEven(width, gravity.x) - innerWidth / 2
            top = scaleToEven(height, gravity.y) - innerHeight / 2
        } else {
            let offX = abs(gravity.x) >= 1 ? roundToEven(gravity.x * dpr) : scaleToEven(width, gravity.x)
            let offY = abs(gravity.y) >= 1 ? roundToEven(gravity.y * dpr) : scaleToEven(height, gravity.y)
            left = roundToEven(Double(width - innerWidth + 1) / 2) + offX
            top = roundToEven(Double(height - innerHeight + 1) / 2) + offY
            switch gravity.kind {
            case .north, .northEast, .northWest: top = offY
            case .south, .southEast, .southWest: top = height - innerHeight - offY
            default: break
            }
            switch gravity.kind {
            case .east, .northEast, .southEast: left = width - innerWidth - offX
            case .west, .northWest, .southWest: left = offX
            default: break
            }
        }
        return (max(0, min(left, width - innerWidth)), max(0, min(top, height - innerHeight)))
    }
}

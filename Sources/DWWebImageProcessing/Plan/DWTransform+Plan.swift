// A DWTransform as a variant plan, and the canvas steps that render it.
import DWWebImage
import Foundation

extension DWTransform {
    /// This transform as a ``DWVariantPlan`` with `dwfetch`'s rules (the transform's format, else the source's own;
    /// SVG rasterised); `watermark` is the image ``DWTransform/watermark`` draws. Call on any thread.
    public func plan(watermark: DWImage? = nil) -> DWVariantPlan {
        DWVariantPlan(transform: self, watermark: watermark)
    }

    /// The processors for this transform: none for ``isIdentity`` (the source is the result), else its
    /// ``plan(watermark:)``. Call on any thread.
    public func processors(watermark: DWImage? = nil) -> [any DWImageProcessor] {
        isIdentity ? [] : [plan(watermark: watermark)]
    }

    /// The steps a plan runs on its canvas, in order: ``MetadataStep`` when `sm`, `kcr`, `scp`, `eth` or `ph`
    /// differ from imgproxy's defaults (before the decode: it decides what is read); a plain resize (fit, fill, or
    /// force with both sides; no other geometry) as ``DWResize``, which shrinks on load, and its blur; anything else of
    /// imgproxy's geometry and pixels as one ``ImgproxyStage``; then `dwfetch`'s grayscale, tint and round corners.
    /// The encoding (format, quality, byte limit) is the plan's.
    func canvasSteps(watermark: DWImage?) -> [any CanvasStep] {
        var steps: [any CanvasStep] = []
        let hdr = keepsHighBitDepth
        let metadata = MetadataStep(
            stripMetadata: stripMetadata, keepCopyright: keepCopyright,
            stripColorProfile: stripColorProfile, enforceThumbnail: enforceThumbnail,
            preserveHDR: hdr)
        if !metadata.isDefault { steps.append(metadata) }
        if !hdr, let resize = plainResize {
            steps.append(resize)
            if blur > 0 { steps.append(DWBlur(sigma: blur)) }
        } else if geometryAndPixels != DWTransform() {
            steps.append(ImgproxyStage(transform: geometryAndPixels, watermark: watermark))
        }
        if grayscale { steps.append(DWGrayscale()) }
        if let tint, tint.count == 4 {
            steps.append(DWTint(red: tint[0], green: tint[1], blue: tint[2], alpha: tint[3]))
        }
        // A radius that is not a finite number ≥ 0 rounds nothing (DWRoundCorners takes only valid radii).
        if let roundCorners, roundCorners.isFinite, roundCorners >= 0 {
            steps.append(DWRoundCorners(radius: roundCorners))
        }
        return steps
    }

    /// The fields ``ImgproxyStage`` applies (encoding, dwfetch's extras and the cache buster cleared).
    var geometryAndPixels: DWTransform {
        var steps = self
        steps.grayscale = false
        steps.tint = nil
        steps.roundCorners = nil
        steps.format = nil
        steps.quality = nil
        steps.formatQuality = [:]
        steps.maxBytes = 0
        steps.cacheBuster = ""
        steps.skipProcessing = []
        steps.stripMetadata = true  // MetadataStep, the first canvas step
        steps.keepCopyright = true
        steps.stripColorProfile = true
        steps.enforceThumbnail = false
        steps.preserveHDR = false
        return steps
    }

    /// `ph:1` as it applies: the output format keeps 16 bits (PNG, TIFF, AVIF, JPEG XL, or the source's own format,
    /// checked again when encoding) and every step is one of imgproxy's, which all work at 16 bits — the geometry
    /// (crop, scale, rotate, flip, the fill crop), trim, extend, padding, background, blur, sharpen, pixelate, adjust,
    /// monochrome and watermark. dwfetch's extras (grayscale, tint, round corners) work in 8 bits, so with them
    /// `ph:1` changes nothing.
    var keepsHighBitDepth: Bool {
        guard preserveHDR, format.map(\.savesHighBitDepth) ?? true else { return false }
        var rest = geometryAndPixels
        (rest.resizingType, rest.width, rest.height, rest.minWidth, rest.minHeight) = (.fit, 0, 0, 0, 0)
        (rest.zoomX, rest.zoomY, rest.dpr, rest.enlarge, rest.gravity) = (1, 1, 1, false, .center)
        (rest.cropWidth, rest.cropHeight, rest.cropGravity, rest.maxResultDimension) = (0, 0, nil, 0)
        (rest.autoRotate, rest.rotate, rest.flipHorizontal, rest.flipVertical) = (true, 0, false, false)
        (rest.extend, rest.extendAspectRatio, rest.padding, rest.background) = (nil, nil, DWPadding(), nil)
        (rest.blur, rest.pixelate, rest.sharpen, rest.trim, rest.monochrome, rest.watermark) = (0, 0, 0, nil, nil, nil)
        (rest.brightness, rest.contrast, rest.saturation) = (0, 1, 1)
        return rest == DWTransform() && !grayscale && tint == nil && roundCorners == nil
    }

    /// The ``DWResize`` for a transform that is only a plain resize (plus blur), else nil.
    private var plainResize: DWResize? {
        var rest = geometryAndPixels
        rest.resizingType = .fit
        (rest.width, rest.height, rest.enlarge, rest.blur) = (0, 0, false, 0)
        // DWResize and DWBlur take only what they can apply (a side within libvips' coordinates, sigma ≤ 1000);
        // imgproxy's arithmetic (ImgproxyStage) takes any.
        guard rest == DWTransform(), width > 0 || height > 0, width <= DWResize.unbounded, height <= DWResize.unbounded,
            blur <= 1000
        else { return nil }
        switch resizingType {
        case .fit: break
        case .fill, .force: guard width > 0 && height > 0 else { return nil }
        case .fillDown, .auto: return nil
        }
        return DWResize(
            width: width > 0 ? width : nil, height: height > 0 ? height : nil, mode: resizingType,
            enlarge: enlarge)
    }
}

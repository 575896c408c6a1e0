// The one builder: a DWTransform to the processor chain, for dwfetch's flags, the library and the server alike.
import DWWebImage
import Foundation

extension DWTransform {
    /// The processor chain for this transform; the same transform always gives the same chain, hence the same
    /// cache key (``DWImageProcessors/cacheKey(url:processors:)``) and the same bytes. Empty for ``isIdentity``.
    ///
    /// A plain resize (fit, fill, or force with both sides; no other geometry) is ``DWResize``, which shrinks on load;
    /// anything else of imgproxy's geometry and pixels is one ``DWImgproxyProcessor``; ``DWMetadataOptions`` before
    /// them when `sm`, `kcr`, `scp` or `eth` differ from imgproxy's defaults. Then `dwfetch`'s grayscale,
    /// tint and round corners, then the encoding: ``DWConvert`` for a format and/or one quality, ``DWEncode`` when
    /// per-format qualities or a byte limit are asked for. `watermark` is the image ``DWTransform/watermark`` draws.
    /// Call on any thread.
    public func processors(watermark: DWImage? = nil) -> [any DWImageProcessor] {
        var chain: [any DWImageProcessor] = []
        let hdr = keepsHighBitDepth
        let metadata = DWMetadataOptions(stripMetadata: stripMetadata, keepCopyright: keepCopyright,
                                         stripColorProfile: stripColorProfile, enforceThumbnail: enforceThumbnail,
                                         preserveHDR: hdr)
        if !metadata.isDefault { chain.append(metadata) }
        if !hdr, let resize = plainResize {
            chain.append(resize)
            if blur > 0 { chain.append(DWBlur(sigma: blur)) }
        } else if geometryAndPixels != DWTransform() {
            let digest = watermark.map { String(Self.fnv1a($0.data), radix: 16) }
            chain.append(DWImgproxyProcessor(transform: geometryAndPixels, watermark: watermark,
                                             watermarkDigest: digest ?? "none", outputFormat: format))
        }
        if grayscale { chain.append(DWGrayscale()) }
        if let tint, tint.count == 4 { chain.append(DWTint(red: tint[0], green: tint[1], blue: tint[2], alpha: tint[3])) }
        if let roundCorners { chain.append(DWRoundCorners(radius: roundCorners)) }
        if !formatQuality.isEmpty || maxBytes > 0 {
            chain.append(DWEncode(format: format, quality: quality, formatQuality: formatQuality, maxBytes: maxBytes))
        } else if let format {
            chain.append(DWConvert(format: format, quality: quality))
        } else if let quality {
            chain.append(DWConvert(quality: quality))
        }
        if !cacheBuster.isEmpty { chain.append(DWCacheBuster(value: cacheBuster)) }
        if !skipProcessing.isEmpty, !chain.isEmpty { return [DWSkipProcessing(formats: skipProcessing, chain: chain, named: format)] }
        return chain
    }

    /// The fields ``DWImgproxyProcessor`` applies (encoding, dwfetch's extras and the cache buster cleared).
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
        steps.stripMetadata = true  // DWMetadataOptions, first in the chain
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
        guard preserveHDR, format.map(Encoder.keepsHighBitDepth) ?? true else { return false }
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
        // DWResize refuses a side beyond libvips' coordinates; imgproxy's arithmetic (DWImgproxyProcessor) takes any.
        guard rest == DWTransform(), width > 0 || height > 0, width <= 10_000_000, height <= 10_000_000 else { return nil }
        switch resizingType {
        case .fit: break
        case .fill, .force: guard width > 0 && height > 0 else { return nil }
        case .fillDown, .auto: return nil
        }
        return DWResize(width: width > 0 ? width : nil, height: height > 0 ? height : nil, mode: resizingType,
                        enlarge: enlarge)
    }

    /// FNV-1a over `data`: names the watermark's bytes in the identifier (not a security measure).
    static func fnv1a(_ data: Data) -> UInt64 {
        data.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

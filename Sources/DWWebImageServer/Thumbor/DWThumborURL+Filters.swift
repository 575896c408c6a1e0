// DWThumborURL+Filters: thumbor's filters mapped onto the transform's fields (imgproxy's steps) and the side value.
import DWImageTransform
import DWWebImage

extension DWThumborURL {
    /// Applies `filters` in order. Geometry filters read the path's parts (`fit-in`, the box).
    static func apply(
        _ filters: [DWThumborFilter], parts p: DWThumborPath, to t: inout DWTransform,
        request: inout DWThumborRequest
    ) throws(ParseError) {
        try focus(filters, parts: p, on: &t)
        for filter in filters {
            switch filter {
            case .quality(let value): t.quality = value
            case .format(let format): t.format = format
            case .maxBytes(let value): t.maxBytes = value
            case .stripEXIF: (t.stripMetadata, t.keepCopyright) = (true, false)
            case .stripICC: t.stripColorProfile = true
            case .noUpscale: t.enlarge = false
            case .upscale: if p.fitIn { t.enlarge = true }
            case .stretch:
                // thumbor's stretch skips the crop; with a side of 0 the box already has the source's aspect.
                if !p.fitIn, t.width != 0, t.height != 0 { t.resizingType = .force }
            case .proportion(let value): (t.zoomX, t.zoomY) = (value, value)
            case .grayscale: t.pixelFilters.append(.lumaGrayscale)  // Pillow's luma, as thumbor
            case .equalize: t.pixelFilters.append(.equalize)
            case .colorize(let r, let g, let b, let color):
                t.pixelFilters.append(.colorize(red: r, green: g, blue: b, color: color))
            case .convolution(let matrix, let columns):
                t.pixelFilters.append(.convolution(matrix: matrix, columns: columns))
            case .roundCorner(let a, let b, let color, let transparent):
                t.pixelFilters.append(.roundCorners(horizontal: a, vertical: b, color: color, transparent: transparent))
            case .rgb(let red, let green, let blue):
                t.pixelFilters.append(.offset(red: 255 * red / 100, green: 255 * green / 100, blue: 255 * blue / 100))
            case .brightness(let percent): t.brightness = 255 * percent / 100  // thumbor's integer arithmetic
            case .contrast(let percent): t.contrast = Double((percent + 100) * (percent + 100) / 100) / 100
            case .saturation(let value): t.saturation = value
            case .blur(let radius, let sigma): t.blur = sigma == 0 ? Double(radius) : sigma
            case .backgroundColor(let color): t.background = color
            case .fill(let fill, let fillTransparent):
                // The box as the path gives it (thumbor's request size; the pixel step sizes it on the image).
                t.pixelFilters.append(.letterbox(width: t.width, height: t.height, adaptive: p.adaptive, fill: fill))
                if fillTransparent, case .color(let color?) = fill { t.background = color }  // merged over it
            case .focal: continue  // focus(_:parts:on:)
            case .sharpen(let amount, let radius, let luminanceOnly):
                t.pixelFilters.append(.waveletSharpen(amount: amount, radius: radius, luminanceOnly: luminanceOnly))
            case .noise(let amount, let seed):
                if amount > 0 { t.pixelFilters.append(.noise(amount: amount, seed: seed)) }
            case .curve(let all, let red, let green, let blue):
                t.pixelFilters.append(.curve(all: all, red: red, green: green, blue: blue))
            case .autoJPG(let enabled): t.pngToJPEG = enabled
            // thumbor 7.8 reads the image part percent-encoded (":" as "%3A"), so its pattern for the inner URL's
            // crop never matches and the filter changes nothing: the same here.
            case .extractFocal: continue
            case .maxAge(let seconds): request.maxAge = seconds
            case .watermark(let spec):
                guard request.watermark == nil else { throw ParseError("thumbor filter 'watermark' is allowed once") }
                request.watermark = spec.url  // fetched, then drawn by the pixel step (DWImageServer+Watermark)
                t.pixelFilters.append(.watermark(spec))
            case .rotate(let degrees):
                // thumbor turns only by multiples of 90 (ignoring the rest), counter-clockwise, after the resize.
                guard degrees % 90 == 0, degrees % 360 != 0 else { continue }
                t.pixelFilters.append(.rotate(clockwise: (360 - (degrees % 360 + 360) % 360) % 360))
            }
        }
    }

    /// thumbor's focal points: each `focal()` rectangle's centre weighted by its area (empty ones ignored, as
    /// thumbor ignores them), the crop centred on their centre of mass in place of the alignment.
    static func focus(_ filters: [DWThumborFilter], parts p: DWThumborPath, on t: inout DWTransform) throws(ParseError)
    {
        var weight = 0.0, sumX = 0.0, sumY = 0.0  // in Double: no rectangle can overflow it
        for case .focal(let left, let top, let right, let bottom) in filters where right > left && bottom > top {
            let (w, h) = (right - left, bottom - top)
            let area = Double(w) * Double(h)
            weight += area
            sumX += Double(left + w / 2) * area
            sumY += Double(top + h / 2) * area
        }
        guard weight > 0 else { return }
        guard p.crop == nil, p.trim == nil else {
            throw ParseError("thumbor filter 'focal' with a manual crop or trim is not supported")
        }
        t.focalPoint = DWFocalPoint(x: (sumX / weight).rounded(.down), y: (sumY / weight).rounded(.down))
    }
}

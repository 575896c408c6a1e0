// SVGRaster: an SVG source rasterised at the scale a request needs, as imgproxy loads it — but only after SVGGuard
// has read it, its size taken from the document (never from a render), and the render itself in a helper process
// under a CPU budget and a memory limit (SVGRenderProcess).
internal import CVips
import DWWebImage
import Foundation

/// Measures and rasterises SVG sources. Every measurement and every render goes through ``prepare(_:)``, which runs
/// ``SVGGuard`` on the bytes with the limits in force (``DWImageProcessing/process(_:with:limits:)``'s, else the
/// process-wide ones) and fixes the size: what the document declares (width/height, or its viewBox), or for a
/// document that declares neither, 300 × 150 (the size a browser gives an image without one; a declared side is
/// kept) — written into the root element, so the render has exactly that size. libvips' `svgload_buffer`
/// (librsvg) then runs only in the helper process (``SVGRenderProcess``), where it is the one untrusted loader
/// unblocked; in this process it stays blocked. Runs on the caller's thread (a processor's).
enum SVGRaster {
    /// libvips' largest coordinate (`VIPS_MAX_COORD`): an SVG with a larger intrinsic side cannot be read at all
    /// (libvips refuses its header, imgproxy answers 422); we refuse it as too large, from the sniffed facts.
    static let maxSide = 10_000_000
    /// The size of a document that declares none: CSS's default object size, what a browser shows.
    static let defaultSize = (width: 300, height: 150)

    /// A document that passed ``SVGGuard``, with the size it renders at (scale 1) declared in it.
    struct Prepared {
        let document: Data
        let width: Int
        let height: Int
        let report: SVGGuard.Report
    }

    /// `image` checked (bytes, sides, ``SVGGuard``) against the limits in force, with its size.
    static func prepare(_ image: DWImage) throws(DWWebImageError) -> Prepared {
        let limits = DWImageProcessing.effectiveLimits
        try checkLimits(image, limits: limits)
        let report = try SVGGuard.check(image.data, maxPixels: limits.maxPixelCount)
        if image.pixelWidth > 0 && image.pixelHeight > 0 {
            return Prepared(document: image.data, width: image.pixelWidth, height: image.pixelHeight, report: report)
        }
        guard let root = report.root else { throw DWWebImageError(.notAnImage, "SVG has no root element") }
        let width = declaredLength(root, "width") ?? defaultSize.width
        let height = declaredLength(root, "height") ?? defaultSize.height
        return Prepared(
            document: sized(image.data, root: root, width: width, height: height), width: width,
            height: height, report: report)
    }

    /// The source's intrinsic size (scale 1, 72 dpi) from the document alone (``prepare(_:)``); nothing renders.
    static func intrinsicSize(of image: DWImage) throws(DWWebImageError) -> (width: Int, height: Int) {
        let prepared = try prepare(image)
        return (prepared.width, prepared.height)
    }

    /// The limits an SVG is held to before anything is read: its source format allowed, its bytes, and each
    /// intrinsic side at most ``maxSide`` (the area is checked at the scale it is rendered at).
    static func checkLimits(_ image: DWImage, limits: DWProcessingLimits) throws(DWWebImageError) {
        try limits.checkSourceFormat(image.format)
        if image.data.count > limits.maxByteCount {
            throw .tooLarge(
                nil, size: Int64(image.data.count), limit: Int64(limits.maxByteCount), what: "encoded size in bytes")
        }
        let side = max(image.pixelWidth, image.pixelHeight)
        if side > maxSide {
            throw .overLibvipsSide("SVG size", image.pixelWidth, image.pixelHeight, maxSide: maxSide)
        }
    }

    /// The SVG at its intrinsic size, scaled down to the limits' ``DWProcessingLimits/vectorPixelCap`` when it is
    /// larger (imgproxy's rule for a vector it does not enlarge): what a processor that does not size it (a
    /// conversion, a filter) draws.
    static func renderWithinLimits(_ image: DWImage) throws(DWWebImageError) -> Decoder.Decoded {
        let prepared = try prepare(image)
        let (width, height) = (prepared.width, prepared.height)
        let geometry = ImgproxyGeometry(
            width: width, height: height, transform: DWTransform(),
            vector: .init(maxPixels: DWImageProcessing.effectiveLimits.vectorPixelCap))
        return try render(prepared, scale: geometry.loadScale(width: width, height: height))
    }

    /// The SVG drawn at `scale` (1: its intrinsic size) into sRGB RGBA.
    static func render(_ image: DWImage, scale: Double) throws(DWWebImageError) -> Decoder.Decoded {
        try render(prepare(image), scale: scale)
    }

    /// A prepared SVG drawn at `scale` into sRGB RGBA by the helper process, within the limits in force (the size
    /// for that scale against the pixel limit first, then ``DWProcessingLimits/renderBudget`` of CPU). Below
    /// libvips' smallest scale (0.001) the dpi is lowered instead, as imgproxy's `vips_svgload_go` does.
    static func render(_ prepared: Prepared, scale: Double) throws(DWWebImageError) -> Decoder.Decoded {
        try Vips.start()
        guard scale.isFinite, scale > 0 else {
            throw DWWebImageError(.notAnImage, "SVG scale \(scale) is not positive")
        }
        var (scale, dpi) = (scale, 72.0)
        if scale < 0.001 {
            dpi *= max(scale / 0.001, 0.001)
            scale = 0.001
        }
        let limits = DWImageProcessing.effectiveLimits
        // the size libvips computes for this scale (px lengths ignore the dpi, so it is at most this); the helper
        // checks the exact one again before librsvg draws
        let expected = (Double(prepared.width) * scale, Double(prepared.height) * scale)
        guard expected.0 < Double(maxSide), expected.1 < Double(maxSide) else {
            throw .overLibvipsSide("SVG rendered at", Int(expected.0), Int(expected.1), maxSide: maxSide)
        }
        try Decoder.checkArea(max(1, Int(expected.0.rounded())), max(1, Int(expected.1.rounded())), limits: limits)
        let frame = try SVGRenderProcess.render(
            prepared.document, scale: scale, dpi: dpi, limits: limits,
            embeddedPixels: prepared.report.embeddedPixels)
        return Decoder.Decoded(frames: [frame])
    }

    /// `svgload_buffer` at `scale` and `dpi`, its size checked against `maxPixels` and ``maxSide`` before librsvg
    /// draws anything. The image is lazy: librsvg renders when its pixels are read. Only the helper process calls
    /// this (``DWSVGRenderHelper``), where the loader is unblocked.
    static func load(_ data: Data, scale: Double, dpi: Double, maxPixels: Int) throws(DWWebImageError) -> VImage {
        let image = try borrowBytes(data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot read svg") {
                cvips_svgload_buffer(bytes.baseAddress!, bytes.count, scale, dpi, $0)
            }
        }
        guard image.width <= maxSide, image.height <= maxSide else {
            throw .overLibvipsSide("SVG rendered at", image.width, image.height, maxSide: maxSide)
        }
        try Decoder.checkArea(image.width, image.height, limits: DWProcessingLimits(maxPixelCount: maxPixels))
        return image
    }

    // MARK: A document without a size

    /// The root's `name` attribute in pixels when it is a length the core's sniffer reads (px, in, cm, mm, pt, pc,
    /// em, ex), not a percentage.
    private static func declaredLength(_ root: DWSVGSanitizer.StartTag, _ name: String) -> Int? {
        guard let value = root.attributes.first(where: { $0.name == name })?.value,
            !value.contains("\""), !value.contains("<"), !value.contains("&")
        else { return nil }
        // The sniffer's own length reader, through the public API: a document declaring only this length.
        let other = name == "width" ? "height" : "width"
        let probe = "<svg xmlns=\"http://www.w3.org/2000/svg\" \(name)=\"\(value)\" \(other)=\"1\"/>"
        guard let image = try? DWImage(data: Data(probe.utf8)) else { return nil }
        let length = name == "width" ? image.pixelWidth : image.pixelHeight
        return length > 0 && length <= maxSide ? length : nil
    }

    /// `data` with the root's `width` and `height` replaced by `width` × `height` pixels.
    private static func sized(_ data: Data, root: DWSVGSanitizer.StartTag, width: Int, height: Int) -> Data {
        let bytes = [UInt8](data)
        var out = Array(bytes[..<root.nameEnd])
        out += Array(" width=\"\(width)\" height=\"\(height)\"".utf8)
        for attribute in root.attributes where attribute.name != "width" && attribute.name != "height" {
            out += bytes[attribute.start..<attribute.end]
        }
        out += bytes[root.attributesEnd...]
        return Data(out)
    }
}

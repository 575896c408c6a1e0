// SVGRaster: an SVG source rasterised by libvips' svgload_buffer (librsvg) at the scale a request needs, as imgproxy
// loads it, its size checked against the limits before a pixel is drawn.
import CVips
import DWWebImage
import Foundation

/// Rasterises SVG sources. libvips starts with its untrusted loaders blocked; ``Vips`` allows `svgload_buffer`
/// alone (never `svgload` or `svgload_source`, which read files), and it is only ever called here, on bytes the
/// sniffer recognised as SVG. A buffer has no base URL, so librsvg resolves no `<image href>`, `<use href>`,
/// `xi:include` or CSS `url()` that names a file or an http(s) URL (only `data:` URLs, which are in the bytes), and
/// libxml2 reads without the network; `unlimited` stays off, so librsvg's XML limits hold. Runs on the caller's
/// thread (a processor's).
enum SVGRaster {
    /// libvips' largest coordinate (`VIPS_MAX_COORD`): an SVG with a larger intrinsic side cannot be read at all
    /// (libvips refuses its header, imgproxy answers 422); we refuse it as too large, from the sniffed facts.
    static let maxSide = 10_000_000

    /// The source's intrinsic size (scale 1, 72 dpi): the sniffed facts, or libvips' header when the document
    /// declares none (libvips then measures the drawing's bounds).
    static func intrinsicSize(of image: DWImage) throws(DWWebImageError) -> (width: Int, height: Int) {
        if image.pixelWidth > 0 && image.pixelHeight > 0 { return (image.pixelWidth, image.pixelHeight) }
        let header = try load(image.data, scale: 1, checkArea: false)
        return (header.width, header.height)
    }

    /// The limits an SVG is held to before anything renders: its bytes, and each intrinsic side at most
    /// ``maxSide`` (the area is checked at the scale it is rendered at, in ``render(_:scale:)``).
    static func checkLimits(_ image: DWImage, limits: DWProcessingLimits) throws(DWWebImageError) {
        if image.data.count > limits.maxByteCount {
            throw DWWebImageError(.tooLarge, "encoded size in bytes of \(image.data.count) is over the limit of "
                                  + "\(limits.maxByteCount)", size: Int64(image.data.count), limit: Int64(limits.maxByteCount))
        }
        let side = max(image.pixelWidth, image.pixelHeight)
        if side > maxSide {
            throw DWWebImageError(.tooLarge, "SVG size \(image.pixelWidth)×\(image.pixelHeight) is over libvips' "
                                  + "limit of \(maxSide) per side", size: Int64(side), limit: Int64(maxSide))
        }
    }

    /// The SVG at its intrinsic size, scaled down to the limits' ``DWProcessingLimits/vectorPixelCap`` when it is
    /// larger (imgproxy's rule for a vector it does not enlarge): what a processor that does not size it (a conversion, a filter) draws.
    static func renderWithinLimits(_ image: DWImage) throws(DWWebImageError) -> Decoder.Decoded {
        let (width, height) = try intrinsicSize(of: image)
        let geometry = ImgproxyGeometry(width: width, height: height, transform: DWTransform(),
                                        vector: .init(maxPixels: DWImageProcessing.effectiveLimits.vectorPixelCap))
        return try render(image, scale: geometry.loadScale(width: width, height: height))
    }

    /// The SVG drawn at `scale` (1: its intrinsic size) into sRGB RGBA; the size libvips computes for that scale is
    /// checked against the limits (pixel count, libvips' coordinate bound) before librsvg draws anything.
    static func render(_ image: DWImage, scale: Double) throws(DWWebImageError) -> Decoder.Decoded {
        let frame = try load(image.data, scale: scale, checkArea: true)
        return Decoder.Decoded(frames: [try Decoder.normalize(frame, autorotate: false)], keepAlive: [image.data])
    }

    /// `svgload_buffer` at `scale`. Below libvips' smallest scale (0.001) the dpi is lowered instead, as imgproxy's
    /// `vips_svgload_go` does. The image is lazy: librsvg renders when its pixels are read.
    private static func load(_ data: Data, scale: Double, checkArea: Bool) throws(DWWebImageError) -> VImage {
        try Vips.start()
        guard scale.isFinite, scale > 0 else { throw DWWebImageError(.notAnImage, "SVG scale \(scale) is not positive") }
        var (scale, dpi) = (scale, 72.0)
        if scale < 0.001 {
            dpi *= max(scale / 0.001, 0.001)
            scale = 0.001
        }
        let (loadScale, loadDPI) = (scale, dpi)
        let image = try borrowBytes(data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot read svg") {
                cvips_svgload_buffer(bytes.baseAddress!, bytes.count, loadScale, loadDPI, $0)
            }
        }
        if checkArea {
            guard image.width <= maxSide, image.height <= maxSide else {
                throw DWWebImageError(.tooLarge, "SVG rendered at \(image.width)×\(image.height) is over libvips' "
                                      + "limit of \(maxSide) per side", size: Int64(max(image.width, image.height)),
                                      limit: Int64(maxSide))
            }
            try Decoder.checkArea(image.width, image.height, limits: DWImageProcessing.effectiveLimits)
        }
        return image
    }
}

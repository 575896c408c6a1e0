// Decoder: limits from the header facts, then libvips (JPEG, PNG, WebP, TIFF, HEIF/AVIF, JPEG XL; libtiff's RGBA reader
// for the TIFFs libvips refuses), giflib (GIF) or our own BMP/ICO reader; every frame leaves here upright, sRGB, 8-bit,
// with 3 or 4 bands.
internal import CVips
import DWWebImage
import Foundation

enum Decoder {
    /// Decoded frames and what must outlive them.
    struct Decoded {
        var frames: [VImage]
        var delays: [TimeInterval] = []
        var netscapeLoopCount: Int?
        var keepAlive: [Data] = []
    }

    /// VipsFailOn: fail on truncated data (and on errors), not on libjpeg's recoverable warnings.
    static let failOnTruncated: Int32 = 1

    // MARK: Limits

    /// The header facts `DWImage(data:)` read (size, frames, bytes) against `limits`: 10005 before any decoding.
    static func checkLimits(_ image: DWImage, limits: DWProcessingLimits) throws(DWWebImageError) {
        if image.format == .svg { return try SVGRaster.checkLimits(image, limits: limits) }  // its area: when rendered
        try limits.checkSourceFormat(image.format)
        if image.data.count > limits.maxByteCount {
            throw tooLarge(Int64(image.data.count), Int64(limits.maxByteCount), "encoded size in bytes")
        }
        try checkArea(image.pixelWidth, image.pixelHeight, limits: limits)
        let animated = image.format == .gif || image.isAnimated  // GIF, APNG, animated WebP: every frame decodes
        if animated && image.frameCount > limits.maxFrameCount {
            throw tooLarge(Int64(image.frameCount), Int64(limits.maxFrameCount), "frame count")
        }
        let frames = animated ? min(image.frameCount, max(1, limits.maxProcessedFrames)) : 1
        let area = image.pixelWidth * image.pixelHeight  // checkArea ruled out overflow
        if animated, image.frameCount > 1, let cap = limits.maxAnimationFramePixelCount, area > cap {
            throw tooLarge(
                Int64(area), Int64(cap), "animation frame \(image.pixelWidth)×\(image.pixelHeight) pixel count")
        }
        let total = area.multipliedReportingOverflow(by: frames)
        if total.overflow || total.partialValue > limits.maxTotalPixelCount {
            throw tooLarge(
                total.overflow ? .max : Int64(total.partialValue), Int64(limits.maxTotalPixelCount),
                "\(frames) frames × \(image.pixelWidth)×\(image.pixelHeight) pixel count")
        }
    }

    /// width × height against the per-frame limit (also for sizes a decoder's own header reports).
    static func checkArea(_ width: Int, _ height: Int, limits: DWProcessingLimits) throws(DWWebImageError) {
        let area = width.multipliedReportingOverflow(by: height)
        if width <= 0 || height <= 0 {
            throw DWWebImageError(.notAnImage, "image has no pixels (\(width)×\(height))")
        }
        if area.overflow || area.partialValue > limits.maxPixelCount {
            throw tooLarge(
                area.overflow ? .max : Int64(area.partialValue), Int64(limits.maxPixelCount),
                "\(width)×\(height) pixel count")
        }
    }

    private static func tooLarge(_ size: Int64, _ limit: Int64, _ what: String) -> DWWebImageError {
        .tooLarge(nil, size: size, limit: limit, what: what)
    }

    // MARK: libvips loaders

    /// The libvips loader for a format, if libvips reads it without its untrusted loaders.
    static func vipsLoader(for format: DWImageFormat) -> Int32? {
        switch format {
        case .jpeg: Int32(CVIPS_LOADER_JPEG)
        case .png: Int32(CVIPS_LOADER_PNG)
        case .webp: Int32(CVIPS_LOADER_WEBP)
        case .tiff: Int32(CVIPS_LOADER_TIFF)
        case .heic, .avif: Int32(CVIPS_LOADER_HEIF)
        case .jxl: Int32(CVIPS_LOADER_JXL)
        case .pnm: Int32(CVIPS_LOADER_PPM)
        case .jp2: Int32(CVIPS_LOADER_JP2K)
        case .fits: Int32(CVIPS_LOADER_FITS)
        default: nil
        }
    }

    /// Opens `data` with the loader for `format` (libvips reads the header now, pixels when they are needed), and
    /// checks the size libvips reports against the limits too. `data` must outlive the image. A TIFF libvips
    /// refuses is decoded now by libtiff's RGBA reader (``TIFFRGBA``).
    static func open(_ data: Data, format: DWImageFormat, sequential: Bool = false) throws(DWWebImageError) -> VImage {
        try openReporting(data, format: format, sequential: sequential).image
    }

    /// ``open(_:format:sequential:)``, and whether libtiff decoded it (then the image is already in memory).
    static func openReporting(_ data: Data, format: DWImageFormat, sequential: Bool = false)
        throws(DWWebImageError) -> (image: VImage, byLibtiff: Bool)
    {
        try Vips.start()
        if let decoder = DWImageCodecs.externalDecoder(for: format) {  // decoded now, into memory (as libtiff's)
            let bitmap = try RegisteredCodec.decode(data, with: decoder, limits: DWImageProcessing.effectiveLimits)
            return (try RegisteredCodec.vipsImage(bitmap), true)
        }
        guard let loader = vipsLoader(for: format) else {
            throw DWWebImageError(.notAnImage, "no decoder for \(format.rawValue) images")
        }
        let limits = DWImageProcessing.effectiveLimits
        try limits.checkSourceFormat(format)
        let siz = try format == .jp2 ? checkJPEG2000(data, limits: limits) : nil
        if format == .pnm { try checkFiniteSamples(data) }
        let fits = try format == .fits ? checkFITS(data, limits: limits) : nil
        if format == .tiff, TIFFRGBA.vipsRefusesPixels(data) {
            return (try TIFFRGBA.decode(data, limits: limits).vipsImage(), true)
        }
        let image: VImage
        do {
            image = try borrowBytes(data) { bytes throws(DWWebImageError) in
                try Vips.make("cannot decode \(format.rawValue)") {
                    cvips_load_buffer(
                        loader, bytes.baseAddress!, bytes.count, failOnTruncated, sequential ? 1 : 0, 0, $0)
                }
            }
            if loader == Int32(CVIPS_LOADER_HEIF) { ownHEIFBlobs(image) }
        } catch {
            guard format == .tiff else { throw error }
            do throws(DWWebImageError) {
                return (try TIFFRGBA.decode(data, limits: limits).vipsImage(), true)
            } catch let libtiff where libtiff.code == .notAnImage {
                throw DWWebImageError(.notAnImage, "\(error.message); \(libtiff.message)")
            }
        }
        try checkArea(image.width, image.height, limits: limits)
        if let siz { try checkJPEG2000Opened(image, siz: siz) }
        if let fits {
            try checkFITSOpened(image, header: fits)
            return (image, true)  // decoded into memory from its temporary file
        }
        return (image, false)
    }

    /// libvips 8.14's HEIF loader attaches the EXIF, XMP and ICC blocks as blobs that point into memory owned by an
    /// image it frees during the load, so once pixels are read, whatever still reads those blocks (an ICC transform,
    /// a saver keeping metadata) reads freed memory (AddressSanitizer, fuzz/url-fuzzer: `sm:0` on a HEIC with EXIF).
    /// Right after the header is read the memory is still alive: every blob is replaced by a copy it owns, which
    /// the images built on this one share. Runs on the caller's thread, before anyone else sees the image.
    static func ownHEIFBlobs(_ image: VImage) {
        cvips_own_blobs(image.pointer)
    }

    /// Shrink-on-load thumbnail, EXIF orientation applied, converted to sRGB. JPEG decodes at the largest DCT scale
    /// that stays at least the target size (``JPEGShrink``); HEIF uses its embedded thumbnail when that still has to
    /// shrink (as `vips_thumbnail` decides); WebP goes through `vips_thumbnail_buffer` (decoded at the exact scale).
    /// `size`: a ``VipsSize``; `crop`: a ``VipsInteresting``.
    static func thumbnail(_ image: DWImage, width: Int, height: Int, size: Int32, crop: Int32)
        throws(DWWebImageError) -> Decoded
    {
        // its own header against the limits first
        let (header, byLibtiff) = try openReporting(image.data, format: image.format)
        // Decoded already (libtiff, a registered codec), or a format with no buffer loader for vips_thumbnail_buffer
        // (ppmload reads sources only), or JPEG 2000 (held to its SIZ when opened): resize the image opened.
        if byLibtiff || image.format == .pnm || image.format == .jp2 {  // FITS: decoded into memory (byLibtiff)
            let thumb = try Vips.make("cannot resize") {
                cvips_thumbnail_image(header.pointer, Int32(width), Int32(height), size, crop, $0)
            }
            return Decoded(frames: [try normalize(thumb, autorotate: false)])
        }
        if image.format == .jpeg {
            let shrink = JPEGShrink.factor(header: header, width: width, height: height, size: size, crop: crop)
            let loaded = try loadJPEG(image.data, shrink: shrink, sequential: true)
            let thumb =
                thumbnailKeeps(loaded, width: width, height: height, size: size, crop: crop)
                ? loaded
                : try Vips.make("cannot resize") {
                    cvips_thumbnail_image(loaded.pointer, Int32(width), Int32(height), size, crop, $0)
                }
            return Decoded(frames: [try normalize(thumb, autorotate: false)], keepAlive: [image.data])
        }
        if image.format == .heic || image.format == .avif {
            // Not vips_thumbnail_buffer: the HEIF loads it makes itself keep 8.14's freed metadata (``ownHEIFBlobs``).
            // Its shrink-on-load, as libvips does it: the embedded thumbnail when it still has to shrink to fit.
            var source = header
            if let embedded = try? openEmbeddedThumbnail(image.data),
                Self.shrinks(embedded, toWidth: width, height: height, size: size, crop: crop)
            {
                source = embedded
            }
            let thumb = try Vips.make("cannot resize") {
                cvips_thumbnail_image(source.pointer, Int32(width), Int32(height), size, crop, $0)
            }
            return Decoded(frames: [try normalize(thumb, autorotate: false)], keepAlive: [image.data])
        }
        let thumb = try borrowBytes(image.data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot decode \(image.format.rawValue)") {
                cvips_thumbnail_buffer(
                    bytes.baseAddress!, bytes.count, Int32(width), Int32(height), size, crop,
                    failOnTruncated, "fail_on=truncated", $0)
            }
        }
        return Decoded(frames: [try normalize(thumb, autorotate: false)], keepAlive: [image.data])
    }

    /// A JPEG opened at libjpeg's DCT scale `shrink` (1, 2, 4 or 8); `sequential`: read once, top to bottom.
    /// Small ones are decoded here into memory (``decodeJPEGHere(_:data:shrink:sequential:)``).
    private static func loadJPEG(_ data: Data, shrink: Int, sequential: Bool) throws(DWWebImageError) -> VImage {
        let loader = try borrowBytes(data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot decode jpeg") {
                cvips_jpegload_shrink_buffer(
                    bytes.baseAddress!, bytes.count, Int32(shrink), failOnTruncated,
                    sequential ? 1 : 0, $0)
            }
        }
        return decodeJPEGHere(loader, data: data, shrink: shrink, sequential: sequential) ?? loader
    }

    // MARK: Full decode

    /// Every frame of a GIF (composited by our giflib decoder; at most `limits.maxProcessedFrames`), an animated
    /// WebP (libvips) or an APNG (``APNGFrameSource``), the first frame of anything else (an SVG at its intrinsic
    /// size, scaled down to the pixel limit: ``SVGRaster``). `keepColorProfile`: a
    /// JPEG, PNG, TIFF, WebP, HEIC or AVIF keeps its pixels and ICC profile as they are. `thumbnail`: a HEIC or AVIF
    /// gives its embedded thumbnail (``openThumbnail(_:format:)``). `keepHighBitDepth`: a 16-bit PNG, TIFF, AVIF or
    /// JPEG XL stays 16-bit (`ph:1`). `jpegShrink` (2, 4 or 8): a JPEG is decoded at that DCT scale (libjpeg's
    /// shrink-on-load; the caller chose a factor its resize still shrinks past).
    static func decode(
        _ image: DWImage, keepColorProfile: Bool = false, thumbnail: Bool = false,
        keepHighBitDepth: Bool = false, jpegShrink: Int = 1
    ) throws(DWWebImageError) -> Decoded {
        try Vips.start()
        switch image.format {
        case .gif:
            return try decodeGIF(image)
        case .bmp:
            let raster = try DIBReader.decodeBMP(image.data, limits: DWImageProcessing.effectiveLimits)
            return Decoded(frames: [try raster.vipsImage()])
        case .ico:
            return try decodeICO(image)
        case .svg:
            return try SVGRaster.renderWithinLimits(image)
        case .webp:
            return try decodeWebP(image, keepColorProfile: keepColorProfile)
        case .png where image.frameCount > 1:
            return try decodeAPNG(image)
        case .jpeg where jpegShrink > 1:
            // Random access: the steps after it (trim, equalize, smart crop…) may read it more than once.
            let opened = try loadJPEG(image.data, shrink: jpegShrink, sequential: false)
            return Decoded(
                frames: [try normalize(opened, autorotate: true, keepColorProfile: keepColorProfile)],
                keepAlive: [image.data])
        default:
            let opened =
                thumbnail
                ? try openThumbnail(image.data, format: image.format)
                : try open(image.data, format: image.format)
            return Decoded(
                frames: [
                    try normalize(
                        opened, autorotate: true, keepColorProfile: keepColorProfile,
                        keepHighBitDepth: keepHighBitDepth)
                ],
                keepAlive: [image.data])
        }
    }

    private static func decodeGIF(_ image: DWImage) throws(DWWebImageError) -> Decoded {
        guard let animation = image.animatedImage(bufferCount: 1) else {
            throw .noFrames("GIF")
        }
        // A damaged tail after complete frames, or a last frame cut short, shows what arrived (as browsers and
        // Pillow do); a frame whose data is corrupt before the end of the file is refused.
        var decoded = Decoded(frames: [], netscapeLoopCount: animation.netscapeLoopCount)
        let lastFrame = animation.frameCount - 1
        try appendFrames(of: animation, to: &decoded, format: "GIF") { frame in
            frame.isComplete || (animation.isPartial && frame.index == lastFrame)
        }
        guard !decoded.frames.isEmpty else { throw .noFrames("GIF") }
        return decoded
    }

    /// Appends `animation`'s composited frames (at most `maxProcessedFrames`) and their delays to `decoded` as libvips
    /// images; a frame `accepts` refuses is "corrupt" (10000). Runs on the caller's thread, one canvas in memory.
    static func appendFrames(
        of animation: DWAnimatedImage, to decoded: inout Decoded, format: String,
        accepts: (DWImageFrame) -> Bool = { $0.isComplete }
    ) throws(DWWebImageError) {
        var failure: DWWebImageError?
        let wanted = max(1, DWImageProcessing.effectiveLimits.maxProcessedFrames)
        animation.forEachFrame { frame in
            guard accepts(frame) else {
                failure = .corruptFrame(frame.index, format: format)
                return false
            }
            do throws(DWWebImageError) {
                let vimage = try borrowBytes(frame.pixels) { bytes throws(DWWebImageError) in
                    try Vips.make("cannot wrap \(format) frame") {
                        cvips_from_memory(
                            bytes.baseAddress!, bytes.count, Int32(frame.width), Int32(frame.height), 4, $0)
                    }
                }
                decoded.frames.append(vimage)
                decoded.delays.append(frame.delay)
                return decoded.frames.count < wanted
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
    }

    private static func decodeICO(_ image: DWImage) throws(DWWebImageError) -> Decoded {
        let limits = DWImageProcessing.effectiveLimits
        switch try DIBReader.decodeICO(image.data, limits: limits) {
        case .raster(let raster):
            return Decoded(frames: [try raster.vipsImage()])
        case .png(let png):
            let opened = try open(png, format: .png)
            return Decoded(frames: [try normalize(opened, autorotate: false)], keepAlive: [png])
        }
    }

    // MARK: Normalising

    /// Upright (EXIF orientation), sRGB (an embedded ICC profile converted; grey, 16-bit and CMYK converted too),
    /// 8 bits per band, 3 bands or 4 with alpha. `keepColorProfile`: an RGB image keeps its profile and pixels.
    /// `keepHighBitDepth`: a 16-bit RGB or grey image stays 16-bit instead (imgproxy's `preserve_hdr`: RGB16 and
    /// grey16 as they are, an ICC profile converted to sRGB at 16 bits).
    static func normalize(
        _ input: VImage, autorotate: Bool, keepColorProfile: Bool = false,
        keepHighBitDepth: Bool = false
    ) throws(DWWebImageError) -> VImage {
        var image = input
        if autorotate, (image.int("orientation") ?? 1) != 1 {
            image = try Vips.make("cannot apply EXIF orientation") { cvips_autorot(image.pointer, $0) }
        }
        if keepHighBitDepth, let high = try highBitDepth(image, keepColorProfile: keepColorProfile) { return high }
        if image.hasICCProfile, !(keepColorProfile && image.isSRGB) {
            // Perceptual intent; a profile lcms cannot use is ignored (then the colourspace step below applies).
            let source = image
            if let converted = try? Vips.make("ICC transform", { cvips_icc_to_srgb(source.pointer, 0, $0) }) {
                image = converted
            }
        }
        if !image.isSRGB || !(image.bands == 3 || image.bands == 4) {
            let source = image
            image = try Vips.make("cannot convert to sRGB") {
                cvips_colourspace(source.pointer, VipsInterpretation.sRGB, $0)
            }
        }
        if !image.isUChar {
            let source = image
            image = try Vips.make("cannot convert to 8 bits") { cvips_cast_uchar(source.pointer, $0) }
        }
        if image.bands > 4 {
            let source = image
            image = try Vips.make("cannot drop extra bands") { cvips_extract_band(source.pointer, 0, 4, $0) }
        }
        return image
    }

    /// A 16-bit RGB or grey image (VipsInterpretation 25 RGB16, 26 grey16) as RGB16 with 3 or 4 bands, or grey16 with
    /// 1 or 2 (kept grey, as imgproxy's `ph:1` does), its ICC profile converted to sRGB at 16 bits unless kept (a
    /// grey one to sRGB and back to grey: imgproxy's sGrey, which libvips 8.14 does not ship); nil for anything else
    /// (then it goes to 8 bits).
    private static func highBitDepth(_ input: VImage, keepColorProfile: Bool) throws(DWWebImageError) -> VImage? {
        let interpretation = cvips_interpretation(input.pointer)
        guard cvips_band_format(input.pointer) == 2, interpretation == 26 || interpretation == 25 else { return nil }
        var image = input
        if image.hasICCProfile, !keepColorProfile {
            let source = image
            if let converted = try? Vips.make("ICC transform", { cvips_icc_to_srgb_depth(source.pointer, 0, 16, $0) }) {
                image = converted
            }
            if interpretation == 26, cvips_interpretation(image.pointer) != 26 {  // grey in sRGB's curve: sGrey
                let rgb = image
                image = try Vips.make("cannot convert to 16-bit grey") {
                    cvips_colourspace(rgb.pointer, VipsInterpretation.grey16, $0)
                }
            }
        }
        let greyKept = cvips_interpretation(image.pointer) == 26 && (image.bands == 1 || image.bands == 2)
        if !greyKept, cvips_interpretation(image.pointer) != 25 || !(image.bands == 3 || image.bands == 4) {
            let source = image
            image = try Vips.make("cannot convert to 16-bit RGB") {
                cvips_colourspace(source.pointer, VipsInterpretation.rgb16, $0)
            }
        }
        if image.bands > 4 {
            let source = image
            image = try Vips.make("cannot drop extra bands") { cvips_extract_band(source.pointer, 0, 4, $0) }
        }
        return cvips_band_format(image.pointer) == 2 ? image : nil
    }
}

/// `body` with `data`'s bytes, keeping the error's type (the standard `withUnsafeBytes` only rethrows).
/// The pointer stays valid after `body` while `data` is alive and unmodified (libvips reads lazily from it).
func borrowBytes<T>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(DWWebImageError) -> T) throws(DWWebImageError)
    -> T
{
    guard !data.isEmpty else { throw DWWebImageError(.notAnImage, "no bytes") }
    let result: Result<T, DWWebImageError> = data.withUnsafeBytes { bytes in
        do throws(DWWebImageError) { return .success(try body(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
}

/// `body` with an array's bytes, keeping the error's type.
func borrowBytes<T>(_ array: [UInt8], _ body: (UnsafeRawBufferPointer) throws(DWWebImageError) -> T)
    throws(DWWebImageError) -> T
{
    let result: Result<T, DWWebImageError> = array.withUnsafeBytes { bytes in
        do throws(DWWebImageError) { return .success(try body(bytes)) } catch { return .failure(error) }
    }
    return try result.get()
}

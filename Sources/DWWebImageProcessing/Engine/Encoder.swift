// Encoder: a canvas to bytes — the output format's saver, animations as one libvips "toilet roll" with page-height,
// delays and loop count.
internal import CVips
import DWWebImage
import Foundation

enum Encoder {
    /// The format a processed image keeps when nothing converts it: the source's own when libvips can write it
    /// (``DWImageFormat/isWritable``), else PNG (BMP and ICO, which libvips cannot write without ImageMagick).
    static func defaultOutputFormat(for format: DWImageFormat) -> DWImageFormat {
        format.isWritable ? format : .png
    }

    /// The output format for `image` when nothing converts it: an APNG whose frames are processed (more than one,
    /// see ``DWProcessingLimits/maxProcessedFrames``) becomes an animated WebP — PNG output would keep only its
    /// first frame — and everything else keeps ``defaultOutputFormat(for:)-(DWImageFormat)``.
    static func defaultOutputFormat(for image: DWImage) -> DWImageFormat {
        if image.format == .png, image.isAnimated, DWImageProcessing.effectiveLimits.maxProcessedFrames > 1 {
            return .webp
        }
        return defaultOutputFormat(for: image.format)
    }

    /// Canvases up to this many bytes of pixels are computed into memory (on this thread) before saving, so a
    /// re-encode at a lower quality does not compute them again; bigger ones stay streaming pipelines.
    static let materializeLimit = 16 * 1024 * 1024

    /// Encodes `canvas` (decoding it first if no processor did), computing small canvases into memory on the way.
    /// An AVIF under 16 pixels on a side is written as PNG when it has alpha, else JPEG, as imgproxy does ("minimal
    /// dimension of AVIF is 16"); the canvas then says the format written.
    static func encode(_ canvas: inout Canvas) throws(DWWebImageError) -> Data {
        try canvas.decode()
        if canvas.outputFormat == .avif, canvas.width < 16 || canvas.height < 16 {
            canvas.outputFormat = canvas.hasAlpha ? .png : .jpeg
        }
        let format = canvas.outputFormat
        let animated = canvas.frames.count > 1 && format.savesAnimation
        var frames = animated ? canvas.frames : [canvas.frames[0]]
        if !format.savesHighBitDepth, frames.contains(where: { !$0.isUChar }) {  // a `ph:1` canvas, written in 8 bits
            frames = try frames.map { (frame: VImage) throws(DWWebImageError) -> VImage in
                frame.isUChar ? frame : try Decoder.normalize(frame, autorotate: false)
            }
        }
        if !format.savesAlpha, frames.contains(where: \.hasAlpha) {
            frames = try frames.map { (frame: VImage) throws(DWWebImageError) -> VImage in
                guard frame.hasAlpha else { return frame }
                return try Vips.make("cannot flatten alpha") { cvips_flatten(frame.pointer, 255, 255, 255, $0) }
            }
        }
        let materialized = pixelBytes(frames) <= materializeLimit
        if materialized {
            let oneThread = DWImageProcessing.threadsPerTransform == 1
            frames = try frames.map { (frame: VImage) throws(DWWebImageError) -> VImage in
                try Vips.make("cannot compute the image") { out in
                    // One libvips worker per transform (the default): compute on this thread rather than hand the
                    // strips to a worker and wait; with more, the thread pool shares one image's work.
                    oneThread ? cvips_render_here(frame.pointer, out) : cvips_copy_memory(frame.pointer, out)
                }
            }
        }
        // The canvas now describes exactly what is encoded (a re-encode for `maxBytes` starts from these frames).
        canvas.frames = frames
        if !animated {
            canvas.delays = []
            canvas.netscapeLoopCount = nil
        }
        let image: VImage
        if animated {
            image = try toiletRoll(frames, delays: canvas.delays, netscapeLoopCount: canvas.netscapeLoopCount)
        } else {
            image = frames[0]
        }
        let (data, time) = try save(image, canvas: canvas, inHelper: !animated)
        // A gated plan learns what this format costs: the wall time of the saver alone over pixels computed before
        // (a streamed canvas would count its whole pipeline; the encode helper times its saver itself). Not this
        // thread's CPU time: savers hand work to threads of their own.
        if !animated, materialized || time.inHelper, let recorder = DWEncodeGate.recorder {
            recorder.record(format, frames[0].width * frames[0].height, time.duration)
        }
        return data
    }

    /// `image` saved as `canvas` says, timed: by the registered codec, else by the encode helper when `inHelper`
    /// and the plan's gate sends this format there (``DWEncodeGate/inIdleHelper(report:)``, told the helper's
    /// scheduling), else by libvips' saver on this thread.
    private static func save(_ image: VImage, canvas: Canvas, inHelper: Bool) throws(DWWebImageError) -> (
        Data, time: (duration: Duration, inHelper: Bool)
    ) {
        let format = canvas.outputFormat
        let quality = canvas.quality ?? format.defaultQuality
        let clock = ContinuousClock()
        let start = clock.now
        if let encoder = DWImageCodecs.externalEncoder(for: format) {
            return (
                try RegisteredCodec.encode(image, with: encoder, quality: canvas.quality), (clock.now - start, false)
            )
        }
        if inHelper, let recorder = DWEncodeGate.recorder, let report = recorder.helperReport,
            recorder.formats.contains(format),
            let call = try saverCall(image, format: format, quality: quality, metadata: canvas.metadata)
        {
            let saved = try IdleEncodeProcess.save(call, format: format)
            report(saved.policy.name)
            return (saved.data, (saved.time, true))
        }
        let data = try save(image, format: format, quality: quality, metadata: canvas.metadata)
        return (data, (clock.now - start, false))
    }

    private static func pixelBytes(_ frames: [VImage]) -> Int {
        frames.reduce(0) { $0 + $1.area * $1.bands }
    }

    /// The frames stacked top to bottom, with the metadata libvips' GIF and WebP savers read: `page-height`,
    /// `delay` (ms per frame) and `loop`.
    private static func toiletRoll(_ frames: [VImage], delays: [TimeInterval], netscapeLoopCount: Int?)
        throws(DWWebImageError) -> VImage
    {
        // Every page needs the same bands: give opaque frames an alpha band when any frame has one.
        var pages = frames
        if frames.contains(where: \.hasAlpha) {
            pages = try frames.map { (frame: VImage) throws(DWWebImageError) -> VImage in
                frame.hasAlpha
                    ? frame : try Vips.make("cannot add alpha") { cvips_bandjoin_const1(frame.pointer, 255, $0) }
            }
        }
        var pointers: [OpaquePointer] = pages.map(\.pointer)
        let count = Int32(pointers.count)
        let joined = try Vips.make("cannot join frames") { out in
            withExtendedLifetime(pages) { cvips_arrayjoin_vertical(&pointers, count, out) }
        }
        let roll = try Vips.make("cannot copy frames") { cvips_copy(joined.pointer, $0) }
        cvips_set_int(roll.pointer, "page-height", Int32(frames[0].height))
        var milliseconds = (0..<frames.count).map { i in Int32(((i < delays.count ? delays[i] : 0.1) * 1000).rounded())
        }
        cvips_set_array_int(roll.pointer, "delay", &milliseconds, Int32(milliseconds.count))
        cvips_set_int(roll.pointer, "loop", Int32(vipsLoop(netscapeLoopCount: netscapeLoopCount)))
        cvips_remove(roll.pointer, "gif-delay")
        cvips_remove(roll.pointer, "gif-loop")
        return roll
    }

    /// libvips' `loop` counts plays (0 = forever): its GIF saver writes NETSCAPE2.0 `loop − 1` (no block for 1), its
    /// WebP saver the ANIM loop count as is. A GIF's NETSCAPE2.0 value n means n + 1 plays in browsers (0 = forever,
    /// no block = once), so the source's own block is written back unchanged.
    static func vipsLoop(netscapeLoopCount: Int?) -> Int {
        guard let n = netscapeLoopCount else { return 1 }
        return n == 0 ? 0 : n + 1
    }

    /// The saver for `format`: JPEG (optimised Huffman tables), PNG (deflate 6), WebP, AVIF (AV1), HEIC (HEVC), JPEG XL
    /// (effort 4), GIF
    /// (libimagequant palette per frame, effort 4), TIFF (deflate); BMP and ICO by
    /// ``saveBMP(_:)``/``saveICO(_:metadata:)``. Metadata as `metadata` says (orientation is applied already; the
    /// pixels are sRGB unless the profile is kept). `onThisThread` (the default) lets a stripped 8-bit JPEG in memory
    /// be compressed by ``saveJPEGHere(_:quality:)`` (the same bytes); false always runs libvips' saver.
    static func save(
        _ image: VImage, format: DWImageFormat, quality: Int, metadata: MetadataPolicy = MetadataPolicy(),
        onThisThread: Bool = true
    ) throws(DWWebImageError) -> Data {
        switch format {
        case .bmp: return try saveBMP(image)
        case .ico: return try saveICO(image, metadata: metadata)
        default: break
        }
        guard let call = try saverCall(image, format: format, quality: quality, metadata: metadata) else {
            guard let encoder = DWImageCodecs.externalEncoder(for: format) else {
                throw DWWebImageError(.notAnImage, "cannot encode \(format.rawValue) images")
            }
            return try RegisteredCodec.encode(image, with: encoder, quality: quality)
        }
        if onThisThread, format == .jpeg, call.strip == 1, !DWImageProcessing.encoderSettings.jpegProgressive,
            let data = try saveJPEGHere(image, quality: Int(call.quality))
        {
            return data
        }
        var buffer: UnsafeMutableRawPointer?
        var length = 0
        guard
            cvips_save_buffer(
                call.saver, call.image.pointer, call.quality, call.effort, call.strip, call.interlace, call.palette,
                &buffer, &length) == 0,
            let buffer
        else {
            throw Vips.error("cannot encode \(format.rawValue)")
        }
        defer { cvips_free(buffer) }
        return Data(bytes: buffer, count: length)
    }

    /// One call of libvips' saver (`cvips_save_buffer`): the image with its metadata applied, and the settings.
    struct SaverCall {
        let image: VImage
        let saver, quality, effort, strip, interlace, palette: Int32
    }

    /// The saver call that writes `image` as ``save(_:format:quality:metadata:onThisThread:)`` does; nil for a format
    /// libvips does not save (BMP, ICO, a registered codec's).
    static func saverCall(_ image: VImage, format: DWImageFormat, quality: Int, metadata: MetadataPolicy)
        throws(DWWebImageError) -> SaverCall?
    {
        let saver: Int32
        switch format {
        case .jpeg: saver = Int32(CVIPS_SAVER_JPEG)
        case .png: saver = Int32(CVIPS_SAVER_PNG)
        case .webp: saver = Int32(CVIPS_SAVER_WEBP)
        case .avif: saver = Int32(CVIPS_SAVER_AVIF)
        case .heic: saver = Int32(CVIPS_SAVER_HEIC)
        case .gif: saver = Int32(CVIPS_SAVER_GIF)
        case .tiff: saver = Int32(CVIPS_SAVER_TIFF)
        case .jxl: saver = Int32(CVIPS_SAVER_JXL)
        default: return nil
        }
        // The dropped fields are removed even when everything is stripped: libvips 8.14's WebP saver writes an
        // `icc-profile-data` (the sRGB profile the ICC import left) whatever `strip` says.
        let applied = try metadata.apply(to: image)
        let strip: Int32 = applied.keepsAny ? 0 : 1
        let settings = DWImageProcessing.encoderSettings
        // GIF: libimagequant at effort 4 instead of libvips' 7 costs a third of the CPU (bench/pixels: GIF was the
        // most expensive output by far) for a palette one can hardly tell apart. AVIF: set explicitly (not libvips'
        // default, which a libvips upgrade may change) from the settings' speed, by default 9, i.e. effort 0, the
        // cheapest AV1 encode: an AVIF of the largest result allowed stays seconds of CPU, not minutes.
        let effort: Int32 =
            switch format {
            case .gif: 4
            case .webp: Int32(settings.webpEffort)
            case .avif: Int32(9 - settings.avifSpeed)
            case .jxl: Int32(settings.jxlEffort)
            default: -1
            }
        let interlace: Int32 =
            switch format {
            case .jpeg: settings.jpegProgressive ? 1 : 0
            case .png: settings.pngInterlaced ? 1 : 0
            default: 0
            }
        let palette = format == .png ? settings.pngPaletteBitDepth : 0
        return SaverCall(
            image: applied.image, saver: saver, quality: Int32(min(100, max(1, quality))), effort: effort, strip: strip,
            interlace: interlace, palette: palette)
    }
}

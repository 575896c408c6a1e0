// DWImage+Bitmap: decoded pixels and full-decode verification, on libvips.
internal import CVips
import DWWebImage
import Foundation

extension DWImage {
    /// The first frame, decoded: RGBA8, straight alpha, sRGB (embedded ICC profiles converted), top row first,
    /// EXIF orientation applied. JPEG, PNG, WebP, TIFF, HEIC and AVIF through libvips; GIF through the library's
    /// giflib decoder; BMP and ICO through its own reader; a registered format (``DWImageCodecs``) through its decoder.
    /// Runs on the caller's thread.
    ///
    /// - Throws: 10005 when the header facts exceed ``DWImageProcessing/limits`` (before anything is decoded),
    ///   10000 when the bytes do not decode (libvips' reason in the message), including truncated data.
    ///
    /// On an image the manager delivered, the cache's decoded tier is asked first under the request's cache key
    /// (``DWWebImageCache/decodedBitmap(forKey:)``): a hit is returned without decoding; a miss decodes and keeps
    /// the bitmap there (Nuke's, Kingfisher's and SDWebImage's memory caches of decoded images).
    public func bitmap() throws(DWWebImageError) -> DWBitmap {
        guard let (cache, key) = decodedTier else { return try decodeBitmap() }
        if let kept = cache.lookUpDecodedBitmap(forKey: key) { return kept }
        let bitmap = try decodeBitmap()
        cache.storeDecodedBitmap(bitmap, forKey: key)
        return bitmap
    }

    /// ``bitmap()`` without the decoded tier: always decodes.
    private func decodeBitmap() throws(DWWebImageError) -> DWBitmap {
        try Vips.start()
        if format == .gif {
            try Decoder.checkLimits(self, limits: DWImageProcessing.effectiveLimits)
            guard let animation = animatedImage(bufferCount: 1), animation.frameCount > 0 else {
                throw .noFrames("GIF")
            }
            let frame = animation.frame(at: 0)
            guard frame.isComplete else { throw .corruptFrame(0, format: "GIF") }
            return frame.bitmap
        }
        if let decoder = DWImageCodecs.externalDecoder(for: format) {  // a registered codec's bitmap, as it is
            let limits = DWImageProcessing.effectiveLimits
            try Decoder.checkLimits(self, limits: limits)
            return try RegisteredCodec.decode(data, with: decoder, limits: limits)
        }
        var canvas = try Canvas(pending: self)
        try canvas.decode()
        return try RegisteredCodec.bitmap(of: canvas.frames[0])
    }

    /// Decodes every pixel (every frame of a GIF, an APNG or an animated WebP) and discards them: a body that is
    /// truncated or corrupt after a valid header throws 10000 instead of passing as an image; a PNG must also be
    /// whole to its `IEND` with a defined compression method (``PNGStructure``), and a GIF whole to its trailer (a
    /// GIF whose last frame is cut short, or whose tail is missing or damaged, is shown by ``bitmap()`` and
    /// processors but fails here: a download cut between two frames looks the same). A TIFF libvips refuses is
    /// decoded by libtiff's RGBA reader. Memory stays low (libvips streams the decode; animations are composited
    /// one canvas at a time). Runs on the caller's thread.
    ///
    /// - Throws: 10005 over ``DWImageProcessing/limits`` (checked first), 10000 when the data does not decode.
    public func verifyDecodes() throws(DWWebImageError) {
        try Vips.start()
        try Decoder.checkLimits(self, limits: DWImageProcessing.effectiveLimits)
        if format == .png { try PNGStructure.check(data) }
        switch format {
        case .gif:
            guard let animation = animatedImage(bufferCount: 1) else {
                throw .noFrames("GIF")
            }
            if animation.isPartial {
                throw DWWebImageError(
                    .notAnImage,
                    "GIF is truncated or corrupt"
                        + (animation.partialReason.map { ": \($0)" } ?? ""))
            }
            try animation.checkFramesComplete(format: "GIF")
        case .png where isAnimated, .webp where isAnimated:
            try verifyAnimationFrames()
        case .bmp:
            _ = try Decoder.decode(self)
        case .svg:  // rendered at its intrinsic size (lazily: the mean computes it)
            let decoded = try Decoder.decode(self)
            var mean = 0.0
            let status = withExtendedLifetime(decoded) { cvips_avg(decoded.frames[0].pointer, &mean) }
            guard status == 0 else { throw Vips.error("cannot render svg") }
        case .ico:
            // A PNG entry is held to its chunk layout too, and its pixels are computed (decode() is lazy for it).
            let limits = DWImageProcessing.effectiveLimits
            if case .png(let png) = try DIBReader.decodeICO(data, limits: limits) { try PNGStructure.check(png) }
            let decoded = try Decoder.decode(self)  // its keepAlive holds the PNG bytes libvips reads lazily
            var mean = 0.0
            let status = withExtendedLifetime(decoded) { cvips_avg(decoded.frames[0].pointer, &mean) }
            guard status == 0 else { throw Vips.error("cannot decode ico") }
        default:
            let opened = try Decoder.open(data, format: format, sequential: true)
            var mean = 0.0
            guard cvips_avg(opened.pointer, &mean) == 0 else { throw Vips.error("cannot decode \(format.rawValue)") }
        }
    }
}

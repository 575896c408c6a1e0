// DWImageProcessing+Animation: registers the WebP (libwebp) and APNG (libvips + Swift compositing) frame sources
// with the core, so DWImage.animatedImage() and DWAnimatedImagePlayer play them like GIFs.
import DWWebImage
import Foundation

extension DWImageProcessing {
    /// Registers animated WebP and APNG decoders with ``DWAnimatedImage/register(_:decoder:)``: afterwards
    /// ``DWImage/animatedImage(bufferCount:)`` and ``DWAnimatedImagePlayer`` handle both like GIFs. Call it once at
    /// start-up (again is harmless); any thread. `dwfetch` calls it; so does every decode in this module.
    ///
    /// WebP frames are composited by libwebp's WebPAnimDecoder (the reference); APNG frames are decoded one by one
    /// by libvips from a standalone PNG and composited as the APNG specification (and browsers) do.
    public static func registerAnimationDecoders() {
        _ = registered
    }

    /// Runs the registration once per process.
    private static let registered: Bool = {
        DWAnimatedImage.register(.webp) { (image, limits) throws(DWWebImageError) in
            try WebPFrameSource(image, limits: limits)
        }
        DWAnimatedImage.register(.png) { (image, limits) throws(DWWebImageError) in
            try APNGFrameSource(image, limits: limits)
        }
        return true
    }()
}

extension DWImage {
    /// Composites every frame of an APNG or animated WebP (its frame source, one canvas in memory) and throws 10000
    /// at the first one whose data is truncated or corrupt, 10005 over the limits. Runs on the caller's thread.
    func verifyAnimationFrames() throws(DWWebImageError) {
        let limits = DWImageProcessing.effectiveLimits
        let animation = try animatedImage(
            bufferCount: 0,
            limits: DWAnimatedImage.Limits(
                maxPixelCount: limits.maxPixelCount, maxFrameCount: limits.maxFrameCount,
                maxTotalPixelCount: limits.maxTotalPixelCount))
        try animation?.checkFramesComplete(format: format.rawValue)
    }
}

extension DWAnimatedImage {
    /// Composites every frame (one canvas in memory) and throws ``DWWebImageError/corruptFrame(_:format:)`` for
    /// the first whose data is truncated or corrupt. Runs on the caller's thread.
    func checkFramesComplete(format: String) throws(DWWebImageError) {
        var corrupt: Int?
        forEachFrame { frame in
            if !frame.isComplete { corrupt = frame.index }
            return frame.isComplete
        }
        if let corrupt { throw DWWebImageError.corruptFrame(corrupt, format: format) }
    }
}

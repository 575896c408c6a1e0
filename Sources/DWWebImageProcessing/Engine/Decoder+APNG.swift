// Decoder+APNG: every frame of an APNG, composited by APNGFrameSource, as libvips images with delays and plays.
import DWWebImage
import Foundation

extension Decoder {
    /// The composited frames of an APNG (at most `maxProcessedFrames`), its delays and loop count. The structure is
    /// checked against the limits first (frame count, total frame area: 10005).
    static func decodeAPNG(_ image: DWImage) throws(DWWebImageError) -> Decoded {
        let limits = DWImageProcessing.effectiveLimits
        let source = try APNGFrameSource(
            image,
            limits: DWAnimatedImage.Limits(
                maxPixelCount: limits.maxPixelCount, maxFrameCount: limits.maxFrameCount,
                maxTotalPixelCount: limits.maxTotalPixelCount))
        let animation = DWAnimatedImage(source: source, bufferCount: 0)
        // libvips counts plays (0 = forever); the canvas keeps GIF's NETSCAPE2.0 value (see Encoder.vipsLoop).
        let plays = animation.loopCount
        var decoded = Decoded(frames: [], netscapeLoopCount: plays == 0 ? 0 : plays == 1 ? nil : plays - 1)
        try appendFrames(of: animation, to: &decoded, format: "APNG")
        return decoded
    }
}

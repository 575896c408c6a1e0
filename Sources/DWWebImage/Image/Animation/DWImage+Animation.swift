// DWImage+Animation: an animation's frames, delays and duration, reachable from the DWImage the pipeline delivers.
import Foundation

extension DWImage {
    /// True for a GIF, APNG or WebP with more than one frame.
    public var isAnimated: Bool { frameCount > 1 && !frameDelays.isEmpty }

    /// Per-frame display times of an animated GIF, APNG or WebP (10 ms or less → 100 ms, as browsers and
    /// SDWebImage do); empty for other formats and still images. Read from the chunks, no pixel decoded.
    public var frameDelays: [TimeInterval] {
        if let gifIndex { return gifIndex.frames.map(\.delay) }
        guard frameCount > 1 else { return [] }
        return Array((AnimationTimeline.read(data, format: format)?.delays ?? []).prefix(frameCount))
    }

    /// The length of one play (the sum of ``frameDelays``); 0 for still images.
    public var duration: TimeInterval { gif?.duration ?? frameDelays.reduce(0, +) }

    /// True when a GIF's data ends early or turns to garbage after at least one complete frame; ``frameCount``
    /// then counts the complete frames before that point, and a later frame the file ends in (once some of its
    /// image data arrived: its rows that arrived are shown, the frame's `isComplete` is false).
    public var isPartial: Bool { gif?.isPartial ?? false }

    /// A decoder for this animation's frames (RGBA canvases, decoded on demand, at most `bufferCount` kept): a GIF
    /// always; an animated WebP or APNG (more than one frame) when a decoder is registered for it (DWWebImageProcessing
    /// registers both: call `DWImageProcessing.registerAnimationDecoders()`); nil otherwise, and when that decoder
    /// rejects the data. Each call returns a new decoder with its own buffer, so the image itself stays a small
    /// value that caches can hold without the decoded frames. Runs on the caller's thread (structure only).
    public func animatedImage(bufferCount: Int = DWAnimatedImage.defaultBufferCount) -> DWAnimatedImage? {
        let source: any DWAnimatedFrameSource
        if let gifIndex {
            source = GIFFrameSource(data: data, index: gifIndex, releasable: releasesWindows)
        } else if frameCount > 1, let decoder = DWAnimatedImage.decoder(for: format) {
            var limits = DWAnimatedImage.Limits.default
            limits.maxPixelCount = max(limits.maxPixelCount, pixelWidth * pixelHeight)
            guard let made = try? decoder(self, limits) else { return nil }
            source = made
        } else {
            return nil
        }
        return DWAnimatedImage(source: source, bufferCount: bufferCount)
    }

    /// Like ``animatedImage(bufferCount:)``, but throws the decoder's error (10000 bad structure, 10005 over
    /// `limits`) instead of returning nil; nil only for a still image or when no decoder handles this format.
    public func animatedImage(bufferCount: Int = DWAnimatedImage.defaultBufferCount, limits: DWAnimatedImage.Limits)
        throws(DWWebImageError) -> DWAnimatedImage?
    {
        if gif != nil { return animatedImage(bufferCount: bufferCount) }
        guard frameCount > 1, let decoder = DWAnimatedImage.decoder(for: format) else { return nil }
        return DWAnimatedImage(source: try decoder(self, limits), bufferCount: bufferCount)
    }
}

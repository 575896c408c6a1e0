// DWImage+Animation: a GIF's frames, delays and duration, reachable from the DWImage the pipeline delivers.
import Foundation

extension DWImage {
    /// True for a GIF with more than one frame.
    public var isAnimated: Bool { gifIndex.map { $0.frames.count > 1 } ?? false }

    /// Per-frame display times of a GIF (10 ms or less → 100 ms, as browsers and SDWebImage do); empty for other
    /// formats.
    public var frameDelays: [TimeInterval] { gifIndex?.frames.map(\.delay) ?? [] }

    /// The length of one play of a GIF (the sum of ``frameDelays``); 0 for other formats.
    public var duration: TimeInterval { gifIndex?.duration ?? 0 }

    /// True when a GIF's data ends early or turns to garbage after at least one complete frame; ``frameCount``
    /// then counts the complete frames before that point, and a later frame the file ends in (once some of its
    /// image data arrived: its rows that arrived are shown, the frame's `isComplete` is false).
    public var isPartial: Bool { gifIndex?.isPartial ?? false }

    /// A decoder for this GIF's frames (RGBA canvases of the logical screen, decoded on demand, at most
    /// `bufferCount` kept); nil for other formats. Each call returns a new decoder with its own buffer, so the
    /// image itself stays a small value that caches can hold without the decoded frames.
    public func animatedImage(bufferCount: Int = DWAnimatedImage.defaultBufferCount) -> DWAnimatedImage? {
        guard let gifIndex else { return nil }
        return DWAnimatedImage(
            data: data, index: gifIndex, bufferCount: bufferCount,
            maxBufferBytes: DWAnimatedImage.defaultMaxBufferBytes, releasable: releasesWindows)
    }
}

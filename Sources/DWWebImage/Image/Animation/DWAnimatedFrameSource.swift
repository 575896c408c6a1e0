// DWAnimatedFrameSource: the seam between DWAnimatedImage (buffering, random access, playback) and a format's
// decoder (how frames are composited). GIF is implemented in the core (giflib); animated WebP and APNG need
// libwebp / libvips, so DWWebImageProcessing registers them (DWAnimatedImage+Registry.swift), the way it
// implements ``DWImageProcessor``.
import Foundation

/// What an animation is made of, read from its structure before any pixel is decoded, and a way to composite its
/// frames in order. Implementations are immutable values (or immutable classes) shared between threads.
///
/// ``DWAnimatedImage`` owns the buffering and random access: it asks for a compositor, draws frames in order on
/// it, snapshots the ones it needs, and may reload a snapshot to continue from (when ``canResume(after:)``).
public protocol DWAnimatedFrameSource: Sendable {
    /// Canvas width in pixels.
    var width: Int { get }
    /// Canvas height in pixels.
    var height: Int { get }
    /// Display time of each frame (as browsers show it: 10 ms or less is 100 ms); its count is the frame count.
    var frameDelays: [TimeInterval] { get }
    /// Plays as the file says, as SDWebImage and ImageIO count them: 0 = forever.
    var loopCount: Int { get }
    /// Plays a browser performs (0 = forever); differs from ``loopCount`` only for GIF (NETSCAPE2.0 n → n + 1).
    var browserPlayCount: Int { get }
    /// True when the data ends early or turns to garbage after at least one complete frame.
    var isPartial: Bool { get }
    /// Why the structure broke off, when ``isPartial``.
    var partialReason: String? { get }
    /// Whether a compositor can continue after frame `index` from that frame's composited canvas alone (false
    /// when what frame `index` covered must be restored later, as GIF's disposal 3 or APNG's dispose PREVIOUS).
    func canResume(after index: Int) -> Bool
    /// A new compositor over a blank canvas. Called under the animation's lock, or by one thread for a pass.
    func makeCompositor() -> any DWFrameCompositor
}

/// Draws an animation's frames in order onto one RGBA canvas. A compositor is used by one thread at a time
/// (``DWAnimatedImage`` keeps its working compositor behind its lock); it is never shared.
public protocol DWFrameCompositor: Sendable {
    /// Index of the last frame drawn; -1 for a blank canvas.
    var drawn: Int { get }
    /// Back to a blank canvas, before frame 0.
    mutating func reset()
    /// Continues from `frame`, a composited canvas this source produced, for which
    /// ``DWAnimatedFrameSource/canResume(after:)`` is true. Returns false when this compositor cannot (the caller then
    /// resets and draws from frame 0).
    mutating func load(_ frame: DWImageFrame) -> Bool
    /// Disposes frame ``drawn`` and draws frame ``drawn`` + 1. Returns false when its data was truncated or
    /// corrupt (what decoded is drawn; the rest shows the previous canvas).
    mutating func drawNext() -> Bool
    /// The canvas now, as frame ``drawn``.
    func snapshot(delay: TimeInterval, isComplete: Bool) -> DWImageFrame
}

extension DWAnimatedFrameSource {
    /// The number of frames.
    public var frameCount: Int { frameDelays.count }
    /// Plays as browsers count them: ``loopCount`` (only GIF differs).
    public var browserPlayCount: Int { loopCount }
    /// Not partial.
    public var isPartial: Bool { false }
    /// No reason.
    public var partialReason: String? { nil }
}

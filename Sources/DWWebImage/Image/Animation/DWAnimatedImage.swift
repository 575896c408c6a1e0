// DWAnimatedImage: an animation's frames (GIF with giflib; WebP and APNG through a registered
// DWAnimatedFrameSource), decoded on demand into RGBA canvases, with a bounded frame buffer.
import DWLocking
import Foundation

/// One composited frame of an animated image: the whole logical screen as RGBA8.
public struct DWImageFrame: Sendable, Equatable {
    /// Position in the animation, from 0.
    public let index: Int
    /// Canvas width in pixels (the GIF logical screen, the APNG / WebP canvas).
    public let width: Int
    /// Canvas height in pixels (the GIF logical screen, the APNG / WebP canvas).
    public let height: Int
    /// `width × height × 4` bytes, row-major, R G B A, straight (not premultiplied) alpha.
    /// Fully transparent pixels are (0, 0, 0, 0).
    public let pixels: [UInt8]
    /// How long this frame stays on screen (delays of 10 ms or less are 100 ms, as in browsers).
    public let delay: TimeInterval
    /// False when this frame's image data was truncated or corrupt: rows after that point show the previous
    /// canvas (transparent on the first frame), as browsers show them.
    public let isComplete: Bool

    /// A frame as a ``DWFrameCompositor`` snapshots it (`pixels`: `width × height × 4` bytes, straight alpha).
    public init(index: Int, width: Int, height: Int, pixels: [UInt8], delay: TimeInterval, isComplete: Bool) {
        precondition(pixels.count == width * height * 4, "a frame's pixels are width × height × 4 bytes")
        self.index = index
        self.width = width
        self.height = height
        self.pixels = pixels
        self.delay = delay
        self.isComplete = isComplete
    }

    /// The RGBA bytes of the pixel at (`x`, `y`).
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}

/// An animation (GIF, animated WebP, APNG) that decodes its frames on demand and keeps at most ``bufferCount``
/// decoded frames, so a 500-frame animation never holds 500 canvases (ImageX's `bufferCount`).
///
/// How frames are composited is the ``source``'s business (browsers' rules for each format: GIF's disposal 0–3
/// with giflib in the core; WebP's and APNG's dispose and blend operations in DWWebImageProcessing). This type
/// owns the buffering: because frame *n* depends on frames before it, decoding resumes from the nearest buffered
/// frame (or the last one drawn); the buffer keeps the first frames it decoded, which is the optimal policy for
/// looping playback.
///
/// Thread-safe: ``frame(at:)`` may be called from any thread (calls are serialised by one lock, which guards the
/// working compositor and the buffer); ``forEachFrame(_:)`` uses its own compositor and needs no lock.
public final class DWAnimatedImage: Sendable {
    /// Budgets checked while reading the structure, before any pixel memory is allocated.
    public struct Limits: Sendable, Equatable {
        /// Largest canvas, and largest frame rect, in pixels (default 64 megapixels) → error 10005.
        public var maxPixelCount: Int
        /// Most frames an animation may have (default 10,000) → error 10005.
        public var maxFrameCount: Int
        /// Largest total of all frame rects' areas (default 2³² pixels, a bound on decoding work) → error 10005.
        public var maxTotalPixelCount: Int

        /// Creates limits; the defaults are those of ``default``.
        public init(
            maxPixelCount: Int = DWImage.defaultMaxPixelCount, maxFrameCount: Int = 10_000,
            maxTotalPixelCount: Int = 1 << 32
        ) {
            self.maxPixelCount = maxPixelCount
            self.maxFrameCount = maxFrameCount
            self.maxTotalPixelCount = maxTotalPixelCount
        }

        /// 64 MP per frame, 10,000 frames, 2³² pixels in all.
        public static let `default` = Limits()
    }

    /// Decoded frames kept by default (ImageX's `bufferCount`).
    public static let defaultBufferCount = 50
    /// Upper bound on the buffer's memory by default: fewer frames are kept when 50 would need more.
    public static let defaultMaxBufferBytes = 256 * 1024 * 1024

    /// Where the frames come from (structure, timing, compositing).
    public let source: any DWAnimatedFrameSource
    /// How many decoded frames are kept at most: `min(bufferCount, maxBufferBytes / frame bytes)`.
    public let bufferCount: Int
    /// Per-frame display times, read once from the source.
    public let frameDelays: [TimeInterval]
    /// The working compositor and the buffer of decoded frames.
    private let state: DWLock<DecoderState>

    private struct DecoderState {
        var compositor: (any DWFrameCompositor)?
        var buffer: [Int: DWImageFrame] = [:]
    }

    /// Reads the structure of GIF `data` with giflib (no pixels are decoded yet).
    ///
    /// - Parameters:
    ///   - limits: budgets checked before anything is allocated.
    ///   - bufferCount: most decoded frames to keep (0 keeps none).
    ///   - maxBufferBytes: most bytes the kept frames may use.
    /// - Throws: ``DWWebImageError`` 10000 when giflib cannot read a single complete frame; 10005 when a limit is
    ///   exceeded.
    public convenience init(
        data: Data, limits: Limits = .default, bufferCount: Int = DWAnimatedImage.defaultBufferCount,
        maxBufferBytes: Int = DWAnimatedImage.defaultMaxBufferBytes
    ) throws(DWWebImageError) {
        let index = try GIFIndex.scan(data, limits: limits)
        self.init(
            source: GIFFrameSource(data: data, index: index, releasable: false), bufferCount: bufferCount,
            maxBufferBytes: maxBufferBytes)
    }

    /// An animation over any frame source (a registered WebP or APNG decoder's, or your own).
    ///
    /// - Parameters:
    ///   - bufferCount: most decoded frames to keep (0 keeps none).
    ///   - maxBufferBytes: most bytes the kept frames may use.
    public init(
        source: any DWAnimatedFrameSource, bufferCount: Int = DWAnimatedImage.defaultBufferCount,
        maxBufferBytes: Int = DWAnimatedImage.defaultMaxBufferBytes
    ) {
        self.source = source
        frameDelays = source.frameDelays
        let frameBytes = max(1, source.width * source.height * 4)
        self.bufferCount = max(0, min(bufferCount, maxBufferBytes / frameBytes, frameDelays.count))
        state = DWLock(DecoderState())
    }

    /// Canvas width.
    public var width: Int { source.width }
    /// Canvas height.
    public var height: Int { source.height }
    /// Number of frames: the complete ones, and for a GIF a later frame cut short by the end of the file
    /// (``isPartial``; its rows that arrived are shown).
    public var frameCount: Int { frameDelays.count }
    /// Number of plays: 0 = forever. GIF: n from a NETSCAPE2.0 block with value n (SDWebImage/ImageIO counting:
    /// n plays; browsers play it n + 1 times), 1 when the file has no NETSCAPE2.0 block, 0 for a single frame.
    /// APNG's `num_plays` and WebP's loop count are plays already.
    public var loopCount: Int { source.loopCount }
    /// Plays a browser performs (0 = forever): GIF's NETSCAPE2.0 n → n + 1; APNG and WebP as ``loopCount``.
    public var browserPlayCount: Int { source.browserPlayCount }
    /// The raw NETSCAPE2.0 / ANIMEXTS1.0 loop value of a GIF, nil when the file has none (and for other formats).
    public var netscapeLoopCount: Int? { (source as? GIFFrameSource)?.index.netscapeLoopCount }
    /// The length of one play: the sum of ``frameDelays``.
    public var duration: TimeInterval { frameDelays.reduce(0, +) }
    /// True when the file ends early or turns to garbage after at least one complete frame; the frames before
    /// that point are played (a GIF's last frame cut short with the rows that arrived). ``partialReason`` says what
    /// the decoder hit.
    public var isPartial: Bool { source.isPartial }
    /// The decoder's description of where the structure broke off, when ``isPartial``.
    public var partialReason: String? { source.partialReason }
    /// How many decoded frames the buffer holds now.
    public var bufferedFrameCount: Int { state.withLock { $0.buffer.count } }

    /// The composited frame `index` (`0 ..< frameCount`), from the buffer or decoded now.
    ///
    /// Never fails on bad data: a frame whose pixel data is corrupt comes back with `isComplete == false`.
    public func frame(at index: Int) -> DWImageFrame {
        precondition(index >= 0 && index < frameCount, "frame index \(index) out of 0..<\(frameCount)")
        return state.withLock { state in
            if let cached = state.buffer[index] { return cached }
            var compositor = state.compositor ?? source.makeCompositor()
            state.compositor = nil  // moved out while we work on it (no copy-on-write of the pixels)
            defer { state.compositor = compositor }
            rewind(&compositor, to: index, buffer: state.buffer)
            var result: DWImageFrame?
            for i in (compositor.drawn + 1)...index {
                let complete = compositor.drawNext()
                let needed = i == index || state.buffer.count < bufferCount
                guard needed else { continue }
                let frame = compositor.snapshot(delay: frameDelays[i], isComplete: complete)
                if state.buffer.count < bufferCount { state.buffer[i] = frame }
                if i == index { result = frame }
            }
            return result!
        }
    }

    /// Moves `compositor` to the closest frame before `index` it can continue from: where it is, a buffered frame
    /// after that, or a blank canvas.
    private func rewind(_ compositor: inout any DWFrameCompositor, to index: Int, buffer: [Int: DWImageFrame]) {
        var best = compositor.drawn < index ? compositor.drawn : -1
        for k in buffer.keys where k < index && k > best && source.canResume(after: k) { best = k }
        guard best != compositor.drawn else { return }
        if best >= 0, let frame = buffer[best], compositor.load(frame) { return }
        compositor.reset()
    }

    /// Decodes every frame in order, calling `body` with each; bypasses the buffer (one canvas in memory).
    /// Return false from `body` to stop early.
    public func forEachFrame(_ body: (DWImageFrame) -> Bool) {
        var compositor = source.makeCompositor()
        for i in 0..<frameCount {
            let complete = compositor.drawNext()
            if !body(compositor.snapshot(delay: frameDelays[i], isComplete: complete)) { break }
        }
    }

    /// Drops every buffered frame and the working canvas (they are decoded again when needed).
    public func purgeBuffer() {
        state.withLock { $0 = DecoderState() }
    }
}

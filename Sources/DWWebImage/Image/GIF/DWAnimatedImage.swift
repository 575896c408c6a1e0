// DWAnimatedImage: a GIF's frames, decoded on demand with giflib into RGBA canvases, with a bounded frame buffer.
import DWLocking
import Foundation

/// One composited frame of an animated image: the whole logical screen as RGBA8.
public struct DWImageFrame: Sendable, Equatable {
    /// Position in the animation, from 0.
    public let index: Int
    /// Canvas width in pixels (the GIF logical screen).
    public let width: Int
    /// Canvas height in pixels (the GIF logical screen).
    public let height: Int
    /// `width × height × 4` bytes, row-major, R G B A, straight (not premultiplied) alpha.
    /// Fully transparent pixels are (0, 0, 0, 0).
    public let pixels: [UInt8]
    /// How long this frame stays on screen (delays of 10 ms or less are 100 ms, as in browsers).
    public let delay: TimeInterval
    /// False when this frame's image data was truncated or corrupt: rows after that point show the previous
    /// canvas (transparent on the first frame), as browsers show them.
    public let isComplete: Bool

    /// The RGBA bytes of the pixel at (`x`, `y`).
    public func rgba(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }
}

/// A GIF animation that decodes its frames on demand (with giflib, from the bytes in memory) and keeps at most
/// ``bufferCount`` decoded frames, so a 500-frame GIF never holds 500 canvases (ImageX's `bufferCount`).
///
/// Frames are composited as browsers do: global and local colour maps, transparency, interlacing, disposal 0–3,
/// frame rects clipped to the logical screen. Because frame *n* depends on frames before it, decoding resumes
/// from the nearest buffered frame (or the last one drawn); the buffer keeps the first frames it decoded, which is
/// the optimal policy for looping playback.
///
/// Thread-safe: ``frame(at:)`` may be called from any thread (calls are serialised by one lock, which guards the
/// working canvas and the buffer); ``forEachFrame(_:)`` uses its own canvas and needs no lock.
public final class DWAnimatedImage: Sendable {
    /// Budgets checked while reading the GIF's structure, before any pixel memory is allocated.
    public struct Limits: Sendable, Equatable {
        /// Largest logical screen, and largest frame rect, in pixels (default 64 megapixels) → error 10005.
        public var maxPixelCount: Int
        /// Most frames a GIF may have (default 10,000) → error 10005.
        public var maxFrameCount: Int
        /// Largest total of all frame rects' areas (default 2³² pixels, a bound on decoding work) → error 10005.
        public var maxTotalPixelCount: Int

        /// Creates limits; the defaults are those of ``default``.
        public init(
            maxPixelCount: Int = 64 * 1024 * 1024, maxFrameCount: Int = 10_000,
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

    /// The GIF bytes.
    public let data: Data
    /// The library made `data` and nobody else holds it: decoding may release what it has read (``FileBytes``).
    let releasable: Bool
    /// The structure giflib read.
    let index: GIFIndex
    /// How many decoded frames are kept at most: `min(bufferCount, maxBufferBytes / frame bytes)`.
    public let bufferCount: Int
    /// The working canvas and the buffer of decoded frames.
    private let state: DWLock<DecoderState>

    private struct DecoderState {
        var canvas: GIFCanvas?
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
        self.init(data: data, index: index, bufferCount: bufferCount, maxBufferBytes: maxBufferBytes)
    }

    init(data: Data, index: GIFIndex, bufferCount: Int, maxBufferBytes: Int, releasable: Bool = false) {
        self.data = data
        self.releasable = releasable
        self.index = index
        let frameBytes = max(1, index.width * index.height * 4)
        self.bufferCount = max(0, min(bufferCount, maxBufferBytes / frameBytes, index.frames.count))
        state = DWLock(DecoderState())
    }

    /// Canvas width (the logical screen).
    public var width: Int { index.width }
    /// Canvas height (the logical screen).
    public var height: Int { index.height }
    /// Number of frames: the complete ones, and a later frame cut short by the end of the file (``isPartial``).
    public var frameCount: Int { index.frames.count }
    /// Number of plays: 0 = forever; n from a NETSCAPE2.0 block with value n (SDWebImage/ImageIO counting: n plays;
    /// browsers play it n + 1 times); 1 when the file has no NETSCAPE2.0 block; 0 for a single-frame GIF.
    public var loopCount: Int { index.loopCount }
    /// The raw NETSCAPE2.0 / ANIMEXTS1.0 loop value, nil when the file has none.
    public var netscapeLoopCount: Int? { index.netscapeLoopCount }
    /// Per-frame display times (10 ms or less → 100 ms).
    public var frameDelays: [TimeInterval] { index.frames.map(\.delay) }
    /// The length of one play: the sum of ``frameDelays``.
    public var duration: TimeInterval { index.duration }
    /// True when the file ends early or turns to garbage after at least one complete frame; the frames before
    /// that point are played (a last frame cut short with the rows that arrived). ``partialReason`` says what
    /// giflib hit.
    public var isPartial: Bool { index.isPartial }
    /// giflib's description of where the structure broke off, when ``isPartial``.
    public var partialReason: String? { index.partialReason }
    /// How many decoded frames the buffer holds now.
    public var bufferedFrameCount: Int { state.withLock { $0.buffer.count } }

    /// The composited frame `index` (`0 ..< frameCount`), from the buffer or decoded now.
    ///
    /// Never fails on bad data: a frame whose pixel data is corrupt comes back with `isComplete == false`.
    public func frame(at index: Int) -> DWImageFrame {
        precondition(index >= 0 && index < frameCount, "frame index \(index) out of 0..<\(frameCount)")
        return state.withLock { state in
            if let cached = state.buffer[index] { return cached }
            var canvas = state.canvas ?? GIFCanvas(width: width, height: height)
            state.canvas = nil  // moved out while we work on it (no copy-on-write of the pixels)
            defer { state.canvas = canvas }
            // Resume from the closest frame before `index`: the canvas itself, or a buffered frame after it.
            // A buffered frame whose disposal is "previous" cannot be resumed from (what it covered is not kept).
            let fromCanvas = canvas.drawn < index ? canvas.drawn : -1
            var best = fromCanvas
            for k in state.buffer.keys where k < index && k > best && self.index.frames[k].disposal != .previous {
                best = k
            }
            if best != canvas.drawn {
                if best >= 0, let frame = state.buffer[best] { canvas.load(frame) } else { canvas.reset() }
            }
            var result: DWImageFrame?
            data.withUnsafeBytes { bytes in
                for i in (canvas.drawn + 1)...index {
                    let complete = canvas.draw(i, of: self.index, bytes: bytes, release: releasable)
                    let needed = i == index || state.buffer.count < bufferCount
                    guard needed else { continue }
                    let frame = canvas.snapshot(index: i, delay: self.index.frames[i].delay, isComplete: complete)
                    if state.buffer.count < bufferCount { state.buffer[i] = frame }
                    if i == index { result = frame }
                }
            }
            return result!
        }
    }

    /// Decodes every frame in order, calling `body` with each; bypasses the buffer (one canvas in memory).
    /// Return false from `body` to stop early.
    public func forEachFrame(_ body: (DWImageFrame) -> Bool) {
        var canvas = GIFCanvas(width: width, height: height)
        data.withUnsafeBytes { bytes in
            for i in 0..<frameCount {
                let complete = canvas.draw(i, of: index, bytes: bytes, release: releasable)
                if !body(canvas.snapshot(index: i, delay: index.frames[i].delay, isComplete: complete)) { break }
            }
        }
    }

    /// Drops every buffered frame and the working canvas (they are decoded again when needed).
    public func purgeBuffer() {
        state.withLock { $0 = DecoderState() }
    }
}

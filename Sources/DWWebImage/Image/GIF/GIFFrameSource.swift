// GIFFrameSource: a GIF as a DWAnimatedFrameSource — GIFIndex's structure, GIFCanvas's compositing.
import Foundation

/// The core's own frame source: giflib structure (``GIFIndex``) and compositing (``GIFCanvas``). Immutable.
struct GIFFrameSource: DWAnimatedFrameSource {
    /// The GIF bytes.
    let data: Data
    /// The structure giflib read.
    let index: GIFIndex
    /// The library made `data` and nobody else holds it: decoding may release what it has read (``FileBytes``).
    let releasable: Bool

    var width: Int { index.width }
    var height: Int { index.height }
    var frameDelays: [TimeInterval] { index.frames.map(\.delay) }
    var loopCount: Int { index.loopCount }
    var browserPlayCount: Int {
        guard let n = index.netscapeLoopCount else { return 1 }
        return n == 0 ? 0 : n + 1
    }
    var isPartial: Bool { index.isPartial }
    var partialReason: String? { index.partialReason }

    /// A frame whose disposal is "previous" cannot be resumed from: what it covered is not in its snapshot.
    func canResume(after index: Int) -> Bool { self.index.frames[index].disposal != .previous }

    func makeCompositor() -> any DWFrameCompositor {
        GIFCompositor(source: self, canvas: GIFCanvas(width: width, height: height))
    }
}

/// A ``GIFCanvas`` with the bytes and structure it draws from.
struct GIFCompositor: DWFrameCompositor {
    let source: GIFFrameSource
    var canvas: GIFCanvas

    var drawn: Int { canvas.drawn }
    mutating func reset() { canvas.reset() }

    mutating func load(_ frame: DWImageFrame) -> Bool {
        canvas.load(frame)
        return true
    }

    mutating func drawNext() -> Bool {
        let next = canvas.drawn + 1
        return source.data.withUnsafeBytes { bytes in
            canvas.draw(next, of: source.index, bytes: bytes, release: source.releasable)
        }
    }

    func snapshot(delay: TimeInterval, isComplete: Bool) -> DWImageFrame {
        canvas.snapshot(index: canvas.drawn, delay: delay, isComplete: isComplete)
    }
}

// WebPFrameSource: an animated WebP as a DWAnimatedFrameSource — structure from libwebp's demuxer, frames
// composited by libwebp's WebPAnimDecoder (the reference compositor: ANMF offsets, blend with alpha or not,
// dispose to transparent, as Chrome and Pillow show them).
internal import CWebP
import DWWebImage
import Foundation

/// An animated WebP's canvas, delays and loop count (read by `WebPDemux`, no pixel decoded). Immutable.
struct WebPFrameSource: DWAnimatedFrameSource {
    /// The WebP bytes.
    let data: Data
    let width: Int
    let height: Int
    let frameDelays: [TimeInterval]
    /// WebP's loop count: plays, 0 = forever.
    let loopCount: Int

    /// Reads the structure and checks `limits` (canvas, frame count, total area of the frames' rects).
    ///
    /// - Throws: 10000 when libwebp cannot demux the data or it has no frame; 10005 over a limit.
    init(_ image: DWImage, limits: DWAnimatedImage.Limits) throws(DWWebImageError) {
        data = image.data
        let read = image.data.withUnsafeBytes { bytes -> (Int, Int, Int, [(area: Int, ms: Int)])? in
            var webp = WebPData(bytes: bytes.bindMemory(to: UInt8.self).baseAddress, size: bytes.count)
            guard let demux = WebPDemux(&webp) else { return nil }
            defer { WebPDemuxDelete(demux) }
            var frames: [(area: Int, ms: Int)] = []
            var iterator = WebPIterator()
            if WebPDemuxGetFrame(demux, 1, &iterator) != 0 {
                repeat {
                    frames.append((Int(iterator.width) * Int(iterator.height), Int(iterator.duration)))
                } while WebPDemuxNextFrame(&iterator) != 0 && frames.count <= limits.maxFrameCount
                WebPDemuxReleaseIterator(&iterator)
            }
            return (
                Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_WIDTH)), Int(WebPDemuxGetI(demux, WEBP_FF_CANVAS_HEIGHT)),
                Int(WebPDemuxGetI(demux, WEBP_FF_LOOP_COUNT)), frames
            )
        }
        guard let (width, height, loops, frames) = read, width > 0, height > 0, !frames.isEmpty else {
            throw DWWebImageError(.notAnImage, "libwebp cannot read this WebP's frames")
        }
        try AnimationLimits.check(width: width, height: height, frameAreas: frames.map(\.area), limits: limits)
        self.width = width
        self.height = height
        loopCount = loops
        frameDelays = frames.map { DWAnimatedImage.browserDelay(Double($0.ms) / 1000) }
    }

    /// WebPAnimDecoder only moves forward from the start: it cannot continue from a snapshot.
    func canResume(after index: Int) -> Bool { false }

    func makeCompositor() -> any DWFrameCompositor { WebPCompositor(data: data, width: width, height: height) }
}

/// A WebPAnimDecoder over its own copy of the bytes (libwebp reads them for as long as the decoder lives).
///
/// `@unchecked Sendable`: a compositor is used by one thread at a time — behind DWAnimatedImage's lock, or by the
/// one thread of a `forEachFrame` pass — and WebPAnimDecoder has no thread affinity; nothing else reaches the
/// decoder or the bytes.
final class WebPCompositor: DWFrameCompositor, @unchecked Sendable {
    private let bytes: UnsafeMutableRawBufferPointer
    private let decoder: OpaquePointer?
    private let width: Int
    private let height: Int
    /// The decoder's canvas (owned by it) after the last frame drawn.
    private var canvas: UnsafeMutablePointer<UInt8>?
    private(set) var drawn = -1

    init(data: Data, width: Int, height: Int) {
        self.width = width
        self.height = height
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, data.count), alignment: 16)
        data.withUnsafeBytes { bytes.copyMemory(from: $0) }
        self.bytes = bytes
        var webp = WebPData(bytes: bytes.bindMemory(to: UInt8.self).baseAddress, size: data.count)
        var options = WebPAnimDecoderOptions()
        if WebPAnimDecoderOptionsInit(&options) != 0 {
            options.color_mode = MODE_RGBA  // straight alpha, as DWImageFrame promises
            options.use_threads = 0
            decoder = WebPAnimDecoderNew(&webp, &options)
        } else {
            decoder = nil
        }
    }

    deinit {
        if let decoder { WebPAnimDecoderDelete(decoder) }
        bytes.deallocate()
    }

    func reset() {
        if let decoder { WebPAnimDecoderReset(decoder) }
        drawn = -1
        canvas = nil
    }

    func load(_ frame: DWImageFrame) -> Bool { false }

    func drawNext() -> Bool {
        drawn += 1
        var buffer: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard let decoder, WebPAnimDecoderGetNext(decoder, &buffer, &timestamp) != 0, let buffer else { return false }
        canvas = buffer
        return true
    }

    func snapshot(delay: TimeInterval, isComplete: Bool) -> DWImageFrame {
        let count = width * height * 4
        var pixels = [UInt8](repeating: 0, count: count)
        if let canvas {
            pixels.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: canvas, count: count) }
        }
        AnimationLimits.clearTransparent(&pixels)
        return DWImageFrame(
            index: drawn, width: width, height: height, pixels: pixels, delay: delay, isComplete: isComplete)
    }
}

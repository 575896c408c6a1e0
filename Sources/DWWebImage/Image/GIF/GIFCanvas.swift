// GIFCanvas: composites GIF frames onto an RGBA canvas of the logical screen, as browsers do.
//
// Rules (Chrome/Firefox behaviour):
// - The canvas starts fully transparent; the background colour index is ignored, also by disposal 2.
// - A frame uses its local colour map, else the global one, else a grey ramp (index i → (i, i, i)), as Pillow does.
//   Indices past the end of the map are opaque black; a transparent index past the end of the map is ignored.
// - Pixels equal to the GCB transparent index leave the canvas untouched.
// - Frame rects are clipped to the screen; nothing is ever written outside the canvas.
// - Disposal of frame n happens just before frame n+1 is drawn: 0/1 keep, 2 clear the rect to transparent,
//   3 restore the rect as it was before frame n was drawn. 4–7 are treated as 0.
// - A frame whose LZW data ends early or is corrupt keeps the rows decoded so far; the rest stays as it was.
internal import CGif
import Foundation

/// A clipped rectangle in canvas coordinates (half-open).
struct GIFClip: Equatable {
    var x0: Int, y0: Int, x1: Int, y1: Int
    var isEmpty: Bool { x0 >= x1 || y0 >= y1 }

    init(_ frame: GIFFrameInfo, width: Int, height: Int) {
        x0 = min(frame.left, width)
        y0 = min(frame.top, height)
        x1 = min(frame.left + frame.width, width)
        y1 = min(frame.top + frame.height, height)
    }
}

struct GIFCanvas {
    let width: Int
    let height: Int
    /// RGBA8 pixels, one UInt32 each in memory byte order R, G, B, A.
    private(set) var pixels: [UInt32]
    /// Index of the last frame drawn onto ``pixels``; -1 for a blank canvas.
    private(set) var drawn = -1
    /// What frame ``drawn`` covered before it was drawn (only when its disposal is "previous").
    private var saved: [UInt32] = []
    private var savedClip: GIFClip?
    /// One decoded line of colour indices.
    private var row: [UInt8] = []
    /// The colour table of the frame being drawn, 256 entries (transparent = 0).
    private var table = [UInt32](repeating: 0, count: 256)

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        pixels = [UInt32](repeating: 0, count: width * height)
    }

    /// Back to a blank (transparent) canvas, before frame 0.
    mutating func reset() {
        pixels.withUnsafeMutableBufferPointer { $0.update(repeating: 0) }
        drawn = -1
        savedClip = nil
    }

    /// Continues from an already composited frame (its disposal must not be "previous": nothing was saved for it).
    mutating func load(_ frame: DWImageFrame) {
        precondition(frame.pixels.count == pixels.count * 4)
        pixels.withUnsafeMutableBytes { dst in
            frame.pixels.withUnsafeBytes { src in dst.copyMemory(from: src) }
        }
        drawn = frame.index
        savedClip = nil
    }

    /// The canvas as RGBA8 bytes.
    func snapshot(index: Int, delay: TimeInterval, isComplete: Bool) -> DWImageFrame {
        let byteCount = pixels.count * 4
        let bytes = [UInt8](unsafeUninitializedCapacity: byteCount) { buffer, count in
            pixels.withUnsafeBytes { src in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: src)
            }
            count = byteCount
        }
        return DWImageFrame(
            index: index, width: width, height: height, pixels: bytes, delay: delay, isComplete: isComplete)
    }

    /// Disposes frame ``drawn`` and draws frame `index` (which must be `drawn + 1`). Returns false when the frame's
    /// image data was truncated or corrupt (the rows decoded before that point are drawn).
    mutating func draw(_ index: Int, of gif: GIFIndex, bytes: UnsafeRawBufferPointer, release: Bool = false) -> Bool {
        precondition(index == drawn + 1 && index < gif.frames.count, "GIF frames are composited in order")
        if drawn >= 0 { dispose(gif.frames[drawn]) }
        let frame = gif.frames[index]
        let clip = GIFClip(frame, width: width, height: height)
        if frame.disposal == .previous { save(clip) } else { savedClip = nil }
        drawn = index
        guard !clip.isEmpty else { return true }  // entirely off-screen (or empty): nothing to decode
        let result: Result<Bool, DWWebImageError> = Result { () throws(DWWebImageError) -> Bool in
            try GIFSession.with(bytes, release: release) { (file, input) throws(DWWebImageError) -> Bool in
                decode(frame, clip: clip, file: file, input: input)
            }
        }
        return (try? result.get()) ?? false
    }

    // MARK: - Disposal

    private mutating func dispose(_ frame: GIFFrameInfo) {
        switch frame.disposal {
        case .unspecified, .keep:
            break
        case .background:
            let clip = GIFClip(frame, width: width, height: height)
            guard !clip.isEmpty else { return }
            let w = width
            pixels.withUnsafeMutableBufferPointer { canvas in
                for y in clip.y0..<clip.y1 {
                    UnsafeMutableBufferPointer(rebasing: canvas[y * w + clip.x0..<y * w + clip.x1]).update(repeating: 0)
                }
            }
        case .previous:
            guard let clip = savedClip, !clip.isEmpty else { return }
            let w = width, span = clip.x1 - clip.x0
            pixels.withUnsafeMutableBufferPointer { canvas in
                saved.withUnsafeBufferPointer { saved in
                    for y in clip.y0..<clip.y1 {
                        let from = (y - clip.y0) * span
                        UnsafeMutableRawPointer(canvas.baseAddress! + y * w + clip.x0)
                            .copyMemory(from: saved.baseAddress! + from, byteCount: span * 4)
                    }
                }
            }
        }
        savedClip = nil
    }

    private mutating func save(_ clip: GIFClip) {
        savedClip = clip
        guard !clip.isEmpty else { return }
        let w = width, span = clip.x1 - clip.x0
        let count = span * (clip.y1 - clip.y0)
        if saved.count < count { saved = [UInt32](repeating: 0, count: count) }
        pixels.withUnsafeBufferPointer { canvas in
            saved.withUnsafeMutableBufferPointer { saved in
                for y in clip.y0..<clip.y1 {
                    UnsafeMutableRawPointer(saved.baseAddress! + (y - clip.y0) * span)
                        .copyMemory(from: canvas.baseAddress! + y * w + clip.x0, byteCount: span * 4)
                }
            }
        }
    }

    // MARK: - Decoding

    /// Builds the colour table for the frame giflib has just read the descriptor of.
    private mutating func prepareTable(_ file: UnsafeMutablePointer<GifFileType>, transparent: Int?) {
        let map = file.pointee.Image.ColorMap ?? file.pointee.SColorMap
        table.withUnsafeMutableBufferPointer { table in
            var count = 0
            if let map, let colors = map.pointee.Colors {
                count = min(max(Int(map.pointee.ColorCount), 0), 256)
                for i in 0..<count {
                    let c = colors[i]
                    table[i] = Self.rgba(c.Red, c.Green, c.Blue)
                }
                for i in count..<256 { table[i] = Self.rgba(0, 0, 0) }
            } else {
                count = 256
                for i in 0..<256 { table[i] = Self.rgba(UInt8(i), UInt8(i), UInt8(i)) }
            }
            if let transparent, transparent < count { table[transparent] = 0 }
        }
    }

    @inline(__always)
    private static func rgba(_ r: UInt8, _ g: UInt8, _ b: UInt8) -> UInt32 {
        UInt32(littleEndian: UInt32(r) | UInt32(g) << 8 | UInt32(b) << 16 | 0xFF00_0000)
    }

    private mutating func decode(
        _ frame: GIFFrameInfo, clip: GIFClip, file: UnsafeMutablePointer<GifFileType>,
        input: UnsafeMutablePointer<GIFInput>
    ) -> Bool {
        input.pointee.offset = frame.offset
        var type = UNDEFINED_RECORD_TYPE
        // giflib refuses a minimum code size over 8 after reading the descriptor and its colour map: GIFWideLZW
        // decodes that frame's data.
        guard DGifGetRecordType(file, &type) == GIF_OK, type == IMAGE_DESC_RECORD_TYPE,
            DGifGetImageDesc(file) == GIF_OK || frame.codeSize > 8
        else { return false }
        let desc = file.pointee.Image
        // The same bytes were walked by the scan; anything else means the index does not belong to these bytes.
        guard Int(desc.Left) == frame.left, Int(desc.Top) == frame.top, Int(desc.Width) == frame.width,
            Int(desc.Height) == frame.height
        else { return false }
        prepareTable(file, transparent: frame.transparentIndex)
        let hasTransparency = frame.transparentIndex.map { table[$0] == 0 } ?? false

        if frame.codeSize > 8 { return decodeWide(frame, clip: clip, input: input, transparent: hasTransparency) }
        let fw = frame.width, fh = frame.height, w = width
        if row.count < fw { row = [UInt8](repeating: 0, count: fw) }
        let span = clip.x1 - clip.x0, srcStart = clip.x0 - frame.left
        let passes: [(start: Int, step: Int)] = frame.interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        // Rows of a progressive frame past the bottom of the screen are never visible: stop decoding there.
        let lastUsefulRow = frame.interlaced ? fh - 1 : min(fh, clip.y1 - frame.top) - 1

        var complete = true
        table.withUnsafeBufferPointer { table in
            row.withUnsafeMutableBufferPointer { line in
                pixels.withUnsafeMutableBufferPointer { canvas in
                    let linePtr = line.baseAddress!, canvasPtr = canvas.baseAddress!, tablePtr = table.baseAddress!
                    passLoop: for pass in passes {
                        var y = pass.start
                        while y < fh && y <= lastUsefulRow {
                            guard DGifGetLine(file, linePtr, Int32(fw)) == GIF_OK else {
                                complete = false
                                break passLoop
                            }
                            let cy = frame.top + y
                            if cy < clip.y1 {
                                let src = linePtr + srcStart
                                let dst = canvasPtr + cy * w + clip.x0
                                if hasTransparency {
                                    for k in 0..<span {
                                        let c = tablePtr[Int(src[k])]
                                        if c != 0 { dst[k] = c }
                                    }
                                } else {
                                    for k in 0..<span { dst[k] = tablePtr[Int(src[k])] }
                                }
                            }
                            y += pass.step
                        }
                    }
                }
            }
        }
        return complete
    }

    /// Draws a frame whose minimum code size giflib refuses (``GIFWideLZW``), `input` at its first data sub-block.
    /// A code past the 256 entries of ``table`` is opaque black, as an index past a colour map is.
    private mutating func decodeWide(
        _ frame: GIFFrameInfo, clip: GIFClip, input: UnsafeMutablePointer<GIFInput>, transparent: Bool
    ) -> Bool {
        guard input.pointee.offset > 0, let base = input.pointee.base else { return false }
        let bytes = UnsafeRawBufferPointer(start: base, count: input.pointee.count)
        guard Int(bytes[input.pointee.offset - 1]) == frame.codeSize else { return false }
        var lzw = GIFWideLZW(bytes, dataStart: input.pointee.offset, minimumCodeSize: frame.codeSize)
        let fw = frame.width, fh = frame.height, w = width, black = Self.rgba(0, 0, 0)
        var line = [UInt16](repeating: 0, count: fw)
        let span = clip.x1 - clip.x0, srcStart = clip.x0 - frame.left
        let passes: [(start: Int, step: Int)] = frame.interlaced ? [(0, 8), (4, 8), (2, 4), (1, 2)] : [(0, 1)]
        let lastUsefulRow = frame.interlaced ? fh - 1 : min(fh, clip.y1 - frame.top) - 1
        let table = table
        for pass in passes {
            var y = pass.start
            while y < fh && y <= lastUsefulRow {
                guard line.withUnsafeMutableBufferPointer({ lzw.nextLine($0.baseAddress!, count: fw) }) else {
                    return false
                }
                let cy = frame.top + y
                if cy < clip.y1 {
                    for k in 0..<span {
                        let index = Int(line[srcStart + k])
                        let c = index < 256 ? table[index] : black
                        if !transparent || c != 0 { pixels[cy * w + clip.x0 + k] = c }
                    }
                }
                y += pass.step
            }
        }
        return true
    }
}

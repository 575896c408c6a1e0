// GIFIndex: a GIF's structure as giflib reads it — screen, frames (where each starts, its rect, timing and
// disposal), NETSCAPE2.0 loop count — found by walking records without decompressing any pixels.
internal import CGif
import Foundation

/// How a frame leaves the canvas before the next one is drawn (Graphic Control Extension, bits 2–4).
enum GIFDisposal: UInt8, Sendable {
    /// 0: unspecified, treated as ``keep`` (as browsers do).
    case unspecified = 0
    /// 1: leave the frame in place.
    case keep = 1
    /// 2: clear the frame's rect to transparent (browsers ignore the background colour index).
    case background = 2
    /// 3: restore the rect to what it was before the frame was drawn.
    case previous = 3

    /// Values 4–7 are reserved; they are treated as 0, as browsers do.
    init(bits: UInt8) { self = GIFDisposal(rawValue: bits) ?? .unspecified }
}

/// One image descriptor and the Graphic Control Extension that preceded it.
struct GIFFrameInfo: Sendable, Equatable {
    /// Byte offset of the image descriptor's introducer (0x2C); decoding reopens giflib and starts here.
    var offset: Int
    var left: Int
    var top: Int
    var width: Int
    var height: Int
    var interlaced: Bool
    /// Raw GCB delay in centiseconds (0 when there is no GCB).
    var delayCentiseconds: Int
    var disposal: GIFDisposal
    /// GCB transparent colour index, or nil.
    var transparentIndex: Int?
    /// The LZW minimum code size: 9…11 is decoded by ``GIFWideLZW``, giflib refuses it.
    var codeSize = 8

    /// The delay a browser uses: 10 ms or less (including none) becomes 100 ms, as browsers and SDWebImage do.
    var delay: TimeInterval { GIFLoopExtension.delay(centiseconds: delayCentiseconds) }
}

/// The structure of a GIF as giflib sees it. Built by ``scan(_:limits:)``; immutable afterwards.
struct GIFIndex: Sendable, Equatable {
    /// Logical screen size (the canvas).
    var width: Int
    var height: Int
    /// Every complete frame, in order, and a last frame cut short by the end of the file (``isPartial``).
    var frames: [GIFFrameInfo]
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) loop value, nil when the file has none.
    var netscapeLoopCount: Int?
    /// True when the record walk stopped early (truncation, garbage, a frame giflib rejects) after ≥ 1 complete
    /// frame: ``frames`` holds the frames before that point (and the frame the file ended in, when it is a later
    /// frame of which some image data arrived).
    var isPartial: Bool
    /// Why the walk stopped early (giflib's error text), when ``isPartial``.
    var partialReason: String?

    /// Number of plays: 0 = forever (NETSCAPE 0), the NETSCAPE value n otherwise (as SDWebImage and ImageIO count),
    /// 1 when the file has no NETSCAPE2.0 block; 0 for a single-frame GIF (a still image).
    var loopCount: Int { GIFLoopExtension.loopCount(frames: frames.count, value: netscapeLoopCount) }

    /// Total of the (normalised) frame delays.
    var duration: TimeInterval { frames.reduce(0) { $0 + $1.delay } }

    /// Walks `data` with giflib (DGifOpen / DGifGetRecordType / DGifGetImageDesc / DGifGetExtension(Next); image
    /// data sub-blocks are skipped as DGifGetCodeNext would), enforcing `limits` before anything is allocated for
    /// pixels.
    ///
    /// - Throws: 10000 when giflib cannot open the data, the screen is 0×0, or no complete frame exists;
    ///   10005 when the screen or a frame rect is over `limits.maxPixelCount`, or the frame count or the frames'
    ///   total area is over its limit.
    /// `release`: `data` is a mapping the library made and nobody else holds (see ``FileBytes``).
    static func scan(_ data: Data, limits: DWAnimatedImage.Limits, release: Bool = false) throws(DWWebImageError)
        -> GIFIndex
    {
        try withBytes(data) { (bytes) throws(DWWebImageError) -> GIFIndex in
            try scan(bytes, limits: limits, release: release)
        }
    }

    static func scan(
        _ bytes: UnsafeRawBufferPointer, limits: DWAnimatedImage.Limits,
        release: Bool = false
    ) throws(DWWebImageError) -> GIFIndex {
        try GIFSession.with(bytes, release: release) { (gif, input) throws(DWWebImageError) -> GIFIndex in
            let width = Int(gif.pointee.SWidth), height = Int(gif.pointee.SHeight)
            guard width > 0, height > 0 else {
                throw DWWebImageError.notAnImage(
                    nil, bytes: bytes.count, detail: "GIF logical screen is \(width)×\(height)")
            }
            try checkPixels(width, height, limit: limits.maxPixelCount, what: "GIF logical screen \(width)×\(height)")

            var scan = Scan(
                index: GIFIndex(
                    width: width, height: height, frames: [], netscapeLoopCount: nil,
                    isPartial: false))
            var stopReason: String?
            walk: while true {
                let recordStart = input.pointee.offset
                var type = UNDEFINED_RECORD_TYPE
                guard DGifGetRecordType(gif, &type) == GIF_OK else {
                    stopReason = failure(gif, input, "record type")
                    break walk
                }
                switch type {
                case IMAGE_DESC_RECORD_TYPE:
                    stopReason = try readFrame(gif, input, bytes, recordStart: recordStart, limits: limits, &scan)
                case EXTENSION_RECORD_TYPE:
                    stopReason = readExtension(gif, input, &scan)
                case TERMINATE_RECORD_TYPE:
                    break walk
                default:
                    stopReason = "unknown record at byte \(recordStart)"
                }
                if stopReason != nil { break walk }
            }
            var index = scan.index
            guard !index.frames.isEmpty else {
                throw DWWebImageError.notAnImage(
                    nil, bytes: bytes.count,
                    detail: "GIF has no complete frame (\(stopReason ?? "no image descriptor"))")
            }
            if let stopReason {
                index.isPartial = true
                index.partialReason = stopReason
            }
            return index
        }
    }

    /// What the walk over the records has gathered so far.
    private struct Scan {
        var index: GIFIndex
        /// The Graphic Control Extension waiting for the next frame.
        var pending = (delay: 0, disposal: GIFDisposal.unspecified, transparent: Int?.none)
        var totalPixels = 0
    }

    /// Reads an image descriptor and skips its compressed data, adding the frame to `scan`; nil, or why the walk
    /// stops here (a truncated or damaged frame). Throws 10005 when a limit is passed.
    private static func readFrame(
        _ gif: UnsafeMutablePointer<GifFileType>, _ input: UnsafeMutablePointer<GIFInput>,
        _ bytes: UnsafeRawBufferPointer, recordStart: Int, limits: DWAnimatedImage.Limits,
        _ scan: inout Scan
    ) throws(DWWebImageError) -> String? {
        let read = DGifGetImageDesc(gif) == GIF_OK
        // DGifGetImageDesc has just read the LZW minimum code size; giflib rejects > 8 after reading the whole
        // descriptor and colour map, which libnsgif and Pillow decode up to 11 (12-bit codes): GIFWideLZW does.
        let codeSize = input.pointee.offset > 0 ? Int(bytes[input.pointee.offset - 1]) : 0
        let wide =
            codeSize > 8 && codeSize <= GIFWideLZW.widest
            && codeSizeOffset(bytes, recordStart) == input.pointee.offset - 1
        guard read || wide else { return failure(gif, input, "image descriptor") }
        guard (1...GIFWideLZW.widest).contains(codeSize) else {
            return "LZW minimum code size \(codeSize) at byte \(input.pointee.offset - 1)"
        }
        let desc = gif.pointee.Image
        let frameWidth = Int(desc.Width), frameHeight = Int(desc.Height)
        let frameNumber = scan.index.frames.count
        // Skip the compressed data sub-blocks without decoding them. This is what DGifGetCode / DGifGetCodeNext do
        // (same truncation rule: a sub-block must be complete), without copying each block through giflib;
        // giflib's input buffer is empty after DGifSetupDecompress, so moving the cursor to the end of the chain
        // leaves it ready for DGifGetRecordType.
        let dataStart = input.pointee.offset
        var cursor = dataStart, cut = true
        while cursor < bytes.count {
            let length = Int(bytes[cursor])
            cursor += 1 + length
            if length == 0 { cut = false; break }
            input.pointee.release(upTo: cursor)
        }
        // A later frame cut short by the end of the file is kept once a byte of its image data has arrived (as
        // libnsgif counts it, and as Pillow and browsers show the rows that arrived); a first frame must be whole.
        if cut {
            let area = frameWidth * frameHeight  // both ≤ 65535
            guard frameNumber > 0, dataStart + 1 < bytes.count, area <= limits.maxPixelCount,
                frameNumber < limits.maxFrameCount, scan.totalPixels + area <= limits.maxTotalPixelCount
            else { return "image data of frame \(frameNumber) ends at byte \(bytes.count)" }
        }
        input.pointee.offset = min(cursor, bytes.count)
        // Limits apply to complete frames: a damaged descriptor in a truncated tail (a 65535×65535 rect whose data
        // ends with the file) is where the walk stops, as browsers stop there, not a 10005 (checked just above).
        try checkPixels(
            frameWidth, frameHeight, limit: limits.maxPixelCount,
            what: "GIF frame \(frameNumber) of \(frameWidth)×\(frameHeight)")
        guard frameNumber < limits.maxFrameCount else {
            throw DWWebImageError.tooLarge(
                nil, size: Int64(frameNumber + 1), limit: Int64(limits.maxFrameCount),
                what: "GIF frame count")
        }
        scan.totalPixels += frameWidth * frameHeight  // each ≤ maxPixelCount, count ≤ maxFrameCount: no overflow
        guard scan.totalPixels <= limits.maxTotalPixelCount else {
            throw DWWebImageError.tooLarge(
                nil, size: Int64(scan.totalPixels), limit: Int64(limits.maxTotalPixelCount),
                what: "GIF total frame area (pixels)")
        }
        let pending = scan.pending
        scan.index.frames.append(
            GIFFrameInfo(
                offset: recordStart, left: Int(desc.Left), top: Int(desc.Top), width: frameWidth,
                height: frameHeight, interlaced: desc.Interlace, delayCentiseconds: pending.delay,
                disposal: pending.disposal, transparentIndex: pending.transparent, codeSize: codeSize))
        scan.pending = (0, .unspecified, nil)
        return cut ? "image data of frame \(frameNumber) ends at byte \(bytes.count)" : nil
    }

    /// Reads an extension: a Graphic Control Extension becomes `scan.pending`, a NETSCAPE2.0/ANIMEXTS1.0 loop count
    /// the index's; others are skipped. Nil, or why the walk stops here.
    private static func readExtension(
        _ gif: UnsafeMutablePointer<GifFileType>, _ input: UnsafeMutablePointer<GIFInput>,
        _ scan: inout Scan
    ) -> String? {
        var code: Int32 = 0
        var block: UnsafeMutablePointer<GifByteType>?
        guard DGifGetExtension(gif, &code, &block) == GIF_OK else { return failure(gif, input, "extension") }
        var isLoopApplication = false
        var first = true
        while let b = block {
            let length = Int(b[0])  // Pascal-style: b[0] is the sub-block length, b[1...length] the data
            if first, code == GRAPHICS_EXT_FUNC_CODE, length == 4 {
                // Only a 4-byte GCB is valid (DGifExtensionToGCB's rule); others are ignored.
                scan.pending = (
                    Int(b[2]) | Int(b[3]) << 8, GIFDisposal(bits: (b[1] >> 2) & 0x07),
                    b[1] & 0x01 != 0 ? Int(b[4]) : nil
                )
            } else if first, code == APPLICATION_EXT_FUNC_CODE, length == 11 {
                isLoopApplication = GIFLoopExtension.isLoop(identifier: UnsafeRawBufferPointer(start: b + 1, count: 11))
            } else if !first, isLoopApplication,
                let loops = GIFLoopExtension.loopValue(data: UnsafeRawBufferPointer(start: b + 1, count: length))
            {
                scan.index.netscapeLoopCount = loops
            }
            first = false
            guard DGifGetExtensionNext(gif, &block) == GIF_OK else { return failure(gif, input, "extension data") }
        }
        return nil
    }

    /// Where the LZW minimum code size byte of the image descriptor at `recordStart` lies (after its local colour
    /// map), or nil when the descriptor runs past the bytes.
    private static func codeSizeOffset(_ bytes: UnsafeRawBufferPointer, _ recordStart: Int) -> Int? {
        guard recordStart >= 0, recordStart + 10 < bytes.count else { return nil }
        let flags = bytes[recordStart + 9]
        let localMap = flags & 0x80 != 0 ? 3 << (Int(flags & 7) + 1) : 0
        return recordStart + 10 + localMap
    }

    private static func failure(
        _ gif: UnsafeMutablePointer<GifFileType>, _ input: UnsafeMutablePointer<GIFInput>,
        _ what: String
    ) -> String {
        // giflib 5.2.1 can fail without setting Error: any GIF_ERROR is a failure regardless.
        let code = gif.pointee.Error
        let text = code == D_GIF_SUCCEEDED ? "read failed" : GIFSession.describe(code)
        return "\(what) at byte \(input.pointee.offset): \(text)"
    }

    /// `what` names the frame in the error; it is made only when there is one (a string a frame is not free).
    private static func checkPixels(
        _ width: Int, _ height: Int, limit: Int, what: @autoclosure () -> String
    ) throws(DWWebImageError) {
        let pixels = width * height  // both ≤ 65535: no overflow on 64-bit
        if pixels > limit {
            throw DWWebImageError.tooLarge(nil, size: Int64(pixels), limit: Int64(limit), what: "\(what()) pixel count")
        }
    }
}

/// `Data.withUnsafeBytes` with a typed error.
func withBytes<R>(_ data: Data, _ body: (UnsafeRawBufferPointer) throws(DWWebImageError) -> R) throws(DWWebImageError)
    -> R
{
    let result: Result<R, DWWebImageError> = data.withUnsafeBytes { raw in
        Result { () throws(DWWebImageError) -> R in try body(raw) }
    }
    return try result.get()
}

// GIFSummary: a well-formed GIF's frame count, loop count and duration, read by walking its records in Swift, so
// an image that no one decodes or inspects frame by frame never opens giflib (DGifOpen alone is ~42 k instructions:
// two zeroed LZW tables and a callback read per colour-map entry).

/// What ``GIFIndex/scan(_:limits:release:)`` would report about a GIF's frame count, loop count and duration,
/// found without giflib — but only for a file with nothing for giflib to judge: every record complete, every LZW
/// code size 1…8, every frame non-empty and within `limits`, the trailer reached. For such a file giflib's walk
/// succeeds and reads the same records, so the facts are equal (``GIFSummaryTests`` checks them against it);
/// for anything else ``walk(_:limits:)`` returns nil and the caller runs giflib now, for its verdict and errors.
struct GIFSummary: Sendable, Equatable {
    var frameCount: Int
    /// The NETSCAPE2.0 (or ANIMEXTS1.0) loop value, nil when the file has none (as ``GIFIndex``).
    var netscapeLoopCount: Int?
    /// The sum of the frames' normalised delays (``GIFFrameInfo/delay``), added in frame order.
    var duration: Double

    /// As ``GIFIndex/loopCount``.
    var loopCount: Int { GIFLoopExtension.loopCount(frames: frameCount, value: netscapeLoopCount) }

    /// Walks `b`; nil when any record is anything but plain (see the type).
    /// Pure bounds-checked arithmetic over the bytes; touches the headers and every sub-block's length byte.
    static func walk(_ b: UnsafeRawBufferPointer, limits: DWAnimatedImage.Limits) -> GIFSummary? {
        let n = b.count
        // DGifOpen checks the "GIF" of the signature only (the version is the sniffer's business).
        guard n >= 13, b[0] == 0x47, b[1] == 0x49, b[2] == 0x46 else { return nil }
        let width = Int(b.littleEndianUInt16(at: 6)), height = Int(b.littleEndianUInt16(at: 8))
        guard width > 0, height > 0, width * height <= limits.maxPixelCount else { return nil }
        var o = 13 + colourMapLength(b[10])
        var summary = GIFSummary(frameCount: 0, netscapeLoopCount: nil, duration: 0)
        var pendingDelay = 0, totalPixels = 0
        while o < n {
            switch b[o] {
            case 0x3B:  // trailer
                return summary.frameCount > 0 ? summary : nil
            case 0x2C:  // image descriptor, local colour map, LZW code size, data sub-blocks
                guard o + 10 <= n else { return nil }
                let area = Int(b.littleEndianUInt16(at: o + 5)) * Int(b.littleEndianUInt16(at: o + 7))
                o += 10 + colourMapLength(b[o + 9])
                guard o < n, (1...8).contains(b[o]) else { return nil }
                guard let end = endOfSubBlocks(b, o + 1) else { return nil }
                o = end
                guard area > 0, area <= limits.maxPixelCount, summary.frameCount < limits.maxFrameCount,
                    totalPixels + area <= limits.maxTotalPixelCount
                else { return nil }
                totalPixels += area
                summary.frameCount += 1
                summary.duration += GIFLoopExtension.delay(centiseconds: pendingDelay)
                pendingDelay = 0
            case 0x21:  // extension: label, sub-blocks (GIFIndex.readExtension's rules for GCB and loops)
                guard o + 1 < n else { return nil }
                let label = b[o + 1]
                o += 2
                var first = true, isLoopApplication = false
                while true {
                    guard o < n else { return nil }
                    let length = Int(b[o])
                    if length == 0 { o += 1; break }
                    guard o + 1 + length <= n else { return nil }
                    if first, label == 0xF9, length == 4 {
                        pendingDelay = Int(b.littleEndianUInt16(at: o + 2))
                    } else if first, label == 0xFF, length == 11 {
                        isLoopApplication = GIFLoopExtension.isLoop(
                            identifier: UnsafeRawBufferPointer(rebasing: b[(o + 1)..<(o + 12)]))
                    } else if !first, isLoopApplication,
                        let loops = GIFLoopExtension.loopValue(
                            data: UnsafeRawBufferPointer(rebasing: b[(o + 1)..<(o + 1 + length)]))
                    {
                        summary.netscapeLoopCount = loops
                    }
                    first = false
                    o += 1 + length
                }
            default:
                return nil
            }
        }
        return nil  // no trailer: giflib's walk ends in a read failure (a partial file)
    }

    /// Bytes of the colour map a screen or image descriptor's packed field announces.
    private static func colourMapLength(_ packed: UInt8) -> Int {
        packed & 0x80 != 0 ? 3 << (Int(packed & 0x07) + 1) : 0
    }

    /// The offset after a complete run of data sub-blocks starting at `start` (its zero-length terminator
    /// included), or nil when the bytes end first.
    private static func endOfSubBlocks(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int? {
        var o = start
        while o < b.count {
            let length = Int(b[o])
            o += 1 + length
            if length == 0 { return o }
        }
        return nil
    }
}

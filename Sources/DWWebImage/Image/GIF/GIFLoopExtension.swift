// GIFLoopExtension: the one rule for a GIF's loop count and a frame's delay, shared by the sniffer, the Swift walk
// and giflib's index.

/// GIF's looping application extension: an application extension whose 11-byte identifier is `NETSCAPE2.0` or
/// `ANIMEXTS1.0` (the same block under AOL's name), followed by data sub-blocks; one with ID 1 and at least 3 bytes
/// carries the loop value (little-endian, 0 = forever), the last such sub-block wins. Pure; any thread.
enum GIFLoopExtension {
    /// Whether an application extension's identifier (its first sub-block's 11 bytes) names a loop extension.
    static func isLoop(identifier: UnsafeRawBufferPointer) -> Bool {
        identifier.elementsEqual("NETSCAPE2.0".utf8) || identifier.elementsEqual("ANIMEXTS1.0".utf8)
    }

    /// The loop value a later sub-block of a loop extension carries, given that sub-block's data (without its length
    /// byte); nil when it is not a loop sub-block.
    static func loopValue(data: UnsafeRawBufferPointer) -> Int? {
        guard data.count >= 3, data[0] == 1 else { return nil }
        return Int(data.littleEndianUInt16(at: 1))
    }

    /// The number of plays a GIF reports: 0 for a still image (one frame), else the loop value (0 = forever, n as
    /// SDWebImage and ImageIO count), 1 when the file has no loop extension (an animation plays once).
    static func loopCount(frames: Int, value: Int?) -> Int { frames > 1 ? (value ?? 1) : 0 }

    /// The delay a browser uses for a frame's graphic-control delay in centiseconds: 10 ms or less (including
    /// none) becomes 100 ms, as browsers and SDWebImage do.
    static func delay(centiseconds: Int) -> Double { centiseconds <= 1 ? 0.1 : Double(centiseconds) / 100 }
}

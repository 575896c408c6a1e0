// AnimationTimeline: an APNG's or animated WebP's frame delays and loop count, read from its chunks (fcTL, ANMF,
// acTL, ANIM) without decoding a pixel — what the facts and the player's schedule need.
import Foundation

/// Frame delays and plays of an APNG or an animated WebP, as browsers time them. Runs on the caller's thread.
struct AnimationTimeline: Sendable, Equatable {
    /// One delay per frame, 10 ms or less → 100 ms (browsers do this for every format, as for GIF).
    var delays: [TimeInterval]
    /// Plays: 0 = forever (APNG `num_plays`, WebP loop count).
    var loopCount: Int

    /// The timeline of `data` when it is an APNG (acTL and fcTL chunks) or a WebP with ANMF frames; nil otherwise.
    static func read(_ data: Data, format: DWImageFormat) -> AnimationTimeline? {
        data.withUnsafeBytes { bytes in
            switch format {
            case .png: return apng(bytes)
            case .webp: return webp(bytes)
            default: return nil
            }
        }
    }

    private static func apng(_ b: UnsafeRawBufferPointer) -> AnimationTimeline? {
        var offset = 8, plays: Int?, delays: [TimeInterval] = []
        while offset + 12 <= b.count {
            let length = Int(b.bigEndianUInt32(at: offset))
            guard length <= b.count - offset - 12 else { break }
            let type = b.bigEndianUInt32(at: offset + 4), body = offset + 8
            if type == 0x6163_544C, length >= 8 {  // acTL
                plays = Int(b.bigEndianUInt32(at: body + 4))
            } else if type == 0x6663_544C, length >= 26 {  // fcTL
                let num = Int(b.bigEndianUInt16(at: body + 20)), den = Int(b.bigEndianUInt16(at: body + 22))
                delays.append(DWAnimatedImage.browserDelay(Double(num) / Double(den == 0 ? 100 : den)))
            } else if type == 0x4945_4E44 {  // IEND
                break
            }
            offset = body + length + 4
        }
        guard let plays, !delays.isEmpty else { return nil }
        return AnimationTimeline(delays: delays, loopCount: plays)
    }

    private static func webp(_ b: UnsafeRawBufferPointer) -> AnimationTimeline? {
        guard b.count >= 12 else { return nil }
        var offset = 12, loops: Int?, delays: [TimeInterval] = []
        while offset + 8 <= b.count {
            let type = b.bigEndianUInt32(at: offset), length = Int(b.littleEndianUInt32(at: offset + 4)),
                body = offset + 8
            guard length <= b.count - body else { break }
            if type == 0x414E_494D, length >= 6 {  // ANIM
                loops = Int(b.littleEndianUInt16(at: body + 4))
            } else if type == 0x414E_4D46, length >= 16 {  // ANMF
                let ms = Int(b.littleEndianUInt32(at: body + 12) & 0xFF_FFFF)  // 24 bits; the flags byte follows
                delays.append(DWAnimatedImage.browserDelay(Double(ms) / 1000))
            }
            offset = body + length + (length & 1)
        }
        guard let loops, !delays.isEmpty else { return nil }
        return AnimationTimeline(delays: delays, loopCount: loops)
    }
}

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
            let length = Int(be32(b, offset))
            guard length <= b.count - offset - 12 else { break }
            let type = be32(b, offset + 4), body = offset + 8
            if type == 0x6163_544C, length >= 8 {  // acTL
                plays = Int(be32(b, body + 4))
            } else if type == 0x6663_544C, length >= 26 {  // fcTL
                let num = Int(be16(b, body + 20)), den = Int(be16(b, body + 22))
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
            let type = be32(b, offset), length = Int(le32(b, offset + 4)), body = offset + 8
            guard length <= b.count - body else { break }
            if type == 0x414E_494D, length >= 6 {  // ANIM
                loops = Int(b[body + 4]) | Int(b[body + 5]) << 8
            } else if type == 0x414E_4D46, length >= 16 {  // ANMF
                let ms = Int(b[body + 12]) | Int(b[body + 13]) << 8 | Int(b[body + 14]) << 16
                delays.append(DWAnimatedImage.browserDelay(Double(ms) / 1000))
            }
            offset = body + length + (length & 1)
        }
        guard let loops, !delays.isEmpty else { return nil }
        return AnimationTimeline(delays: delays, loopCount: loops)
    }

    private static func be32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
    }

    private static func be16(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) << 8 | UInt32(b[at + 1])
    }

    private static func le32(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        UInt32(b[at]) | UInt32(b[at + 1]) << 8 | UInt32(b[at + 2]) << 16 | UInt32(b[at + 3]) << 24
    }
}

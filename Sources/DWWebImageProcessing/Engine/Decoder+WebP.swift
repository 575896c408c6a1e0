// Decoder+WebP: animated WebP — every page, its delays and loop count (libvips' n=-1, page-height, delay, loop).
internal import CVips
import DWWebImage
import Foundation

extension Decoder {
    /// The pages of a WebP: one frame for a still image; every frame, with its delay and the loop count, for an
    /// animation. The area of all pages together is checked against the limits. `keepColorProfile`: an ICC profile
    /// and the pixels it describes stay as they are (`scp:0`).
    static func decodeWebP(_ image: DWImage, keepColorProfile: Bool = false) throws(DWWebImageError) -> Decoded {
        let header = try open(image.data, format: .webp)
        guard (header.int("n-pages") ?? 1) > 1 else {
            return Decoded(
                frames: [try normalize(header, autorotate: true, keepColorProfile: keepColorProfile)],
                keepAlive: [image.data])
        }
        let roll = try borrowBytes(image.data) { bytes throws(DWWebImageError) in
            try Vips.make("cannot decode webp") {
                cvips_load_webp_pages(bytes.baseAddress!, bytes.count, failOnTruncated, $0)
            }
        }
        try checkArea(roll.width, roll.height, limits: DWImageProcessing.limits)
        let pageHeight = roll.int("page-height") ?? roll.height
        guard pageHeight > 0, roll.height % pageHeight == 0 else {
            throw DWWebImageError(.notAnImage, "WebP pages differ in size")
        }
        let count = min(roll.height / pageHeight, max(1, DWImageProcessing.effectiveLimits.maxProcessedFrames))
        let flat = try normalize(roll, autorotate: false, keepColorProfile: keepColorProfile)
        var decoded = Decoded(frames: [], keepAlive: [image.data])
        for page in 0..<count {
            decoded.frames.append(
                try Vips.make("cannot split webp pages") {
                    cvips_extract_area(
                        flat.pointer, 0, Int32(page * pageHeight), Int32(flat.width), Int32(pageHeight), $0)
                })
        }
        var delays: UnsafeMutablePointer<Int32>?
        var delayCount: Int32 = 0
        if cvips_get_array_int(roll.pointer, "delay", &delays, &delayCount) == 0, let delays {
            decoded.delays = (0..<count).map { TimeInterval(Int($0) < Int(delayCount) ? delays[$0] : 100) / 1000 }
        } else {
            decoded.delays = Array(repeating: 0.1, count: count)
        }
        // libvips' loop counts plays (0 = forever); the canvas keeps GIF's NETSCAPE2.0 value (see Encoder.vipsLoop).
        let loop = roll.int("loop") ?? 0
        decoded.netscapeLoopCount = loop == 0 ? 0 : loop == 1 ? nil : loop - 1
        return decoded
    }

    /// Whether `image` is a WebP with more than one page (from the header; nothing decodes).
    static func isAnimatedWebP(_ image: DWImage) -> Bool {
        guard image.format == .webp, let header = try? open(image.data, format: .webp) else { return false }
        return (header.int("n-pages") ?? 1) > 1
    }
}

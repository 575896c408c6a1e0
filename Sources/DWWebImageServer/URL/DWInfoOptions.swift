// DWInfoOptions: /info's options, by imgproxy Pro's names (size, format, dimensions, blurhash, dominant_colors,
// average) plus frames and orientation, the cache buster and the expiry.
import Foundation

/// What `GET /info/{signature}/{options}/{source}` reports. Defaults: size, format, dimensions, frames and
/// orientation on; BlurHash, dominant colours and the average colour on request. A plain value.
struct DWInfoOptions: Sendable, Equatable {
    /// Whether the report has the source's byte size, its format, its width and height, its frame count and its
    /// EXIF orientation (`s`, `f`, `d`, `fr`, `or`; each on by default).
    var size = true, format = true, dimensions = true, frames = true, orientation = true
    /// BlurHash components across and down (1…9 each); 0 across: none.
    var blurHashX = 0, blurHashY = 0
    /// How many dominant colours as a list (`dc:N`, 2…16, beyond imgproxy); 0: none.
    var dominantColors = 0
    /// imgproxy Pro's named dominant colours (`dc:1`), and whether missing ones are built from those found
    /// (`dc:1:1`, its `build_missed`).
    var dominantPalette = false, buildMissed = false
    /// Whether to report the average colour.
    var average = false
    /// Whether to report the ThumbHash (`th`).
    var thumbHash = false
    /// The width of a tiny placeholder to report as a `data:` URI (`lqip`, 4…64); 0: none.
    var lqipWidth = 0
    /// Changes the cache key and nothing else [`cb`], as for images.
    var cacheBuster = ""
    /// `exp`: a Unix time after which the URL answers 404 (checked when parsed; not part of the answer's key); nil:
    /// never.
    var expires: Int64?

    /// The defaults.
    init() {}

    /// Every option, spelled once: names the answer in the caches
    /// (`info(s:1,f:1,d:1,fr:1,or:1,bh:0x0,dc:0,avg:0,th:0,lqip:0,cb:…)`).
    var identifier: String {
        let flags = [("s", size), ("f", format), ("d", dimensions), ("fr", frames), ("or", orientation)]
            .map { "\($0.0):\($0.1 ? 1 : 0)" }.joined(separator: ",")
        let colours = dominantPalette ? "p\(buildMissed ? 1 : 0)" : String(dominantColors)
        return "info(\(flags),bh:\(blurHashX)x\(blurHashY),dc:\(colours),avg:\(average ? 1 : 0),"
            + "th:\(thumbHash ? 1 : 0),lqip:\(lqipWidth),cb:\(cacheBuster.utf8.count):\(cacheBuster))"
    }

    /// Applies one `name:args` segment; unknown or malformed is a 400 naming it, an `exp:` before `now` (Unix
    /// seconds) a 404. With `onlyPresets` (`--only-presets`) only `exp` and `cb` are accepted: the other options
    /// choose work, which only the operator's presets may do on such a server.
    mutating func apply(
        _ segment: Substring, onlyPresets: Bool = false,
        now: Int64 = Int64(Date().timeIntervalSince1970)
    ) throws(DWProxyURL.ParseError) {
        let parts = segment.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        let r = ArgReader(name: parts[0], args: Array(parts.dropFirst()))
        try r.atLeast(1)
        if onlyPresets, !["expires", "exp", "cachebuster", "cb"].contains(parts[0]) {
            throw DWProxyURL.ParseError("info option '\(parts[0])' is not allowed with --only-presets")
        }
        switch parts[0] {
        case "size", "s": try r.max(1); size = r.bool(0)
        case "format", "f": try r.max(1); format = r.bool(0)
        case "dimensions", "d": try r.max(1); dimensions = r.bool(0)
        case "frames", "fr": try r.max(1); frames = r.bool(0)
        case "orientation", "or": try r.max(1); orientation = r.bool(0)
        case "blurhash", "bh":
            try r.max(2)
            let x = try r.intIn(0, 0...9)
            (blurHashX, blurHashY) = (x, r.args.count > 1 ? try r.intIn(1, 1...9) : x)
        case "dominant_colors", "dc":
            try r.max(2)
            (dominantPalette, buildMissed) = (r.bool(0), r.bool(0) && r.args.count > 1 && r.bool(1))
            dominantColors = dominantPalette ? 0 : (Int(r.args[0]) ?? 0)
            guard (0...16).contains(dominantColors), dominantPalette || r.args.count == 1 else {
                throw r.error("1 (with build_missed 0 or 1) or 0, or a count up to 16")
            }
        case "average", "avg": try r.max(1); average = r.bool(0)
        case "thumbhash", "th": try r.max(1); thumbHash = r.bool(0)
        case "lqip":
            try r.max(1)
            lqipWidth = try r.intIn(0, 0...64)
            guard lqipWidth == 0 || lqipWidth >= 4 else { throw r.error("a width of 4 to 64 pixels, or 0") }
        case "cachebuster", "cb": try r.max(1); cacheBuster = r.args[0]
        case "expires", "exp":
            try r.max(1)
            guard let time = Int64(r.args[0]) else { throw r.error("expects a Unix timestamp") }
            if time > 0 && time < now { throw DWProxyURL.ParseError("expired URL (exp:\(time))", status: 404) }
            expires = time > 0 ? time : nil
        default: throw DWProxyURL.ParseError("unknown info option '\(parts[0])'")
        }
    }
}

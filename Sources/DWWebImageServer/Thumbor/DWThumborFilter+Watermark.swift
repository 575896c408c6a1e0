// DWThumborFilter+Watermark: thumbor's `watermark(url, x, y, alpha[, w_ratio[, h_ratio]])` read as thumbor's regexes
// read it, and `frame(url)`, refused.
import DWImageTransform

extension DWThumborFilter {
    /// `watermark` from `reader` (its URL percent-decoded and given `http://` when it has no scheme, as thumbor's
    /// HTTP loader does; not yet checked against `--watermark-allow-host`: ``DWThumborURL`` does that); `frame` is
    /// refused (docs/thumbor.md says why); nil for any other name.
    static func fetchingFilter(_ reader: Args) throws(ParseError) -> DWThumborFilter? {
        switch reader.name {
        case "watermark": return try watermark(reader)
        case "frame":
            throw ParseError("thumbor filter 'frame' is not supported (its nine-patch frame is not served here)")
        default: return nil
        }
    }

    private static func watermark(_ reader: Args) throws(ParseError) -> DWThumborFilter {
        try reader.count(4, upTo: 6)
        var text = reader.args[0]
        if text.count > 2, text.hasPrefix("'"), text.hasSuffix("'") { text = String(text.dropFirst().dropLast()) }
        guard !text.isEmpty else { throw reader.bad(0) }
        let url: String
        do throws(ParseError) {
            url = try DWThumborURL.source(text)
        } catch {
            throw ParseError("thumbor filter 'watermark': bad image URL '\(text)'")
        }
        let x = try position(reader, 1), y = try position(reader, 2)
        let alpha = min(try reader.unsigned(3), 100)  // 100 leaves no alpha: so does anything above it
        var ratios: [Int?] = [nil, nil]
        for index in 4..<reader.args.count where reader.args[index] != "none" {
            let value = try reader.integer(index)
            guard value >= 0 else { throw reader.bad(index) }  // thumbor fails on a negative size: a 500 there
            ratios[index - 4] = value == 0 ? nil : min(value, 100_000)  // thumbor reads 0 as no ratio
        }
        return .watermark(
            DWThumborWatermark(
                url: url, x: x, y: y, alpha: alpha, widthRatio: ratios[0],
                heightRatio: ratios[1]))
    }

    /// `N`, `-N`, `Np`, `-Np`, `center`, `repeat` (thumbor's `(?:-?\d+p?)|center|repeat`).
    private static func position(_ reader: Args, _ index: Int) throws(ParseError) -> DWThumborWatermark.Position {
        let text = reader.args[index]
        if text == "center" { return .center }
        if text == "repeat" { return .tiled }
        let fromEnd = text.hasPrefix("-"), percent = text.hasSuffix("p")
        var digits = fromEnd ? text.dropFirst() : Substring(text)
        if percent { digits = digits.dropLast() }
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }) else { throw reader.bad(index) }
        let value = min(Int(digits) ?? Int.max, 1_000_000)  // beyond any result; keeps the arithmetic exact
        return percent ? .percent(value, fromEnd: fromEnd) : .pixels(value, fromEnd: fromEnd)
    }
}
